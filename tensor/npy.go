package tensor

import (
	"archive/zip"
	"bytes"
	bin "encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"codeberg.org/sbinet/npyio/npy"
	"codeberg.org/sbinet/npyio/npz"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// ErrNPY is the error of .npy or .npz input that is not a NumPy array this package
// reads: not the NumPy format, a malformed or oversized header, a dtype other than
// float64 ('<f8', '>f8'), complex128 ('<c16', '>c16'), float32 ('<f4', '>f4') and
// complex64 ('<c8', '>c8'), a negative or overflowing shape, or data shorter than
// the shape says. It wraps chainrules.ErrInvalidArgument; the errors of LoadNPY and
// LoadNPZ that come from the input wrap it (errors.Is(err, tensor.ErrNPY)), and an
// error of the underlying reader is wrapped as well.
var ErrNPY = fmt.Errorf("%w: tensor: not a NumPy float64 or complex128 array", cr.ErrInvalidArgument)

// maxNPYHeader bounds the header length LoadNPY accepts (numpy's own default limit,
// max_header_size, is 10000 bytes).
const maxNPYHeader = 1 << 16

var npyMagic = [6]byte{0x93, 'N', 'U', 'M', 'P', 'Y'}

// npyCodes are NumPy's type codes of the dtypes, without the byte order: SaveNPY
// writes '<' and the code, LoadNPY reads either byte order.
var npyCodes = map[DType]string{Float64: "f8", Complex128: "c16", Float32: "f4", Complex64: "c8"}

// npyDType returns the dtype and byte order of a NumPy type descriptor such as
// '<f8': '<' and '=' (native, which NumPy writes only on little-endian machines)
// are little-endian, '>' big-endian; ok is false for any other descriptor.
func npyDType(descr string) (dt DType, order bin.ByteOrder, ok bool) {
	if descr == "" {
		return 0, nil, false
	}
	switch descr[0] {
	case '<', '=':
		order = bin.LittleEndian
	case '>':
		order = bin.BigEndian
	default:
		return 0, nil, false
	}
	for dt, code := range npyCodes {
		if descr[1:] == code {
			return dt, order, true
		}
	}
	return 0, nil, false
}

// SaveNPY writes t to w in NumPy's .npy format (version 1.0, C order,
// little-endian '<f8', '<c16', '<f4' or '<c8' for float64, complex128, float32 and
// complex64), which numpy.load reads back as an array of t's
// shape and dtype; a scalar is a 0-d array. It writes t's elements in row-major
// order whatever its strides (a view is saved as its elements). Errors are w's.
func SaveNPY(w io.Writer, t *Dense) error {
	if t == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "tensor.SaveNPY: nil tensor")
	}
	code := npyCodes[t.DType()]
	if code == "" {
		return cr.Errorf(cr.ErrInvalidArgument, "tensor.SaveNPY: invalid dtype %v", t.DType())
	}
	descr := "<" + code
	var shape strings.Builder
	shape.WriteByte('(')
	for k, d := range t.Shape() {
		if k > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(d))
	}
	if t.Rank() == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape.String())
	// Pad with spaces and end with a newline so that the data starts at a multiple
	// of 64 bytes, as numpy does.
	const preamble = len(npyMagic) + 2 + 2
	pad := 64 - (preamble+len(header)+1)%64
	if pad == 64 {
		pad = 0
	}
	header += strings.Repeat(" ", pad) + "\n"
	var pre [preamble]byte
	copy(pre[:], npyMagic[:])
	pre[6], pre[7] = 1, 0
	bin.LittleEndian.PutUint16(pre[8:], uint16(len(header)))
	if _, err := w.Write(pre[:]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	return writeElements(w, t)
}

// writeElements writes t's elements in row-major order, little-endian, in chunks.
// Whatever the dtype, the elements are a run of words, 4 bytes for float32 and
// complex64, 8 for float64 and complex128 (a complex element is two, its real part
// first, as in NumPy's layout).
func writeElements(w io.Writer, t *Dense) error {
	if !t.IsContiguous() {
		t = t.Clone()
	}
	if t.dtype.IsSingle() {
		return writeWords(w, elemWords[uint32](t), bin.LittleEndian.AppendUint32)
	}
	return writeWords(w, elemWords[uint64](t), bin.LittleEndian.AppendUint64)
}

// elemWords returns the elements of the contiguous tensor t as words of type W,
// aliasing its storage (nil if t is empty). W has the size of t's real parts.
func elemWords[W uint32 | uint64](t *Dense) []W {
	n := t.Size()
	if n == 0 {
		return nil
	}
	var w W
	es := elemSize(t.dtype)
	return unsafe.Slice((*W)(unsafe.Add(t.data.ptr, t.offset*es)), n*es/int(unsafe.Sizeof(w)))
}

// writeWords writes words to w in chunks, each word encoded by put.
func writeWords[W uint32 | uint64](w io.Writer, words []W, put func([]byte, W) []byte) error {
	const chunk = 8192 // words per write
	var z W
	buf := make([]byte, 0, int(unsafe.Sizeof(z))*min(len(words), chunk))
	for len(words) > 0 {
		k := min(len(words), chunk)
		buf = buf[:0]
		for _, v := range words[:k] {
			buf = put(buf, v)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		words = words[k:]
	}
	return nil
}

// LoadNPY reads a NumPy .npy array of dtype float64, complex128, float32 or
// complex64 from r (as written
// by numpy.save or SaveNPY; either byte order, C or Fortran order, any rank) into a
// fresh contiguous tensor. The header is parsed by codeberg.org/sbinet/npyio after
// its length has been checked; the data are read in chunks, so a header that
// promises more data than r holds costs no more memory than r's data. Input that is
// not such an array is an error wrapping ErrNPY; it never panics.
func LoadNPY(r io.Reader) (*Dense, error) {
	hdr, err := readNPYHeader(r)
	if err != nil {
		return nil, err
	}
	descr := strings.Trim(strings.TrimSpace(hdr.Descr.Type), "'\"")
	dt, order, ok := npyDType(descr)
	if !ok {
		return nil, fmt.Errorf("%w: dtype %q (want float64 '<f8', complex128 '<c16', float32 '<f4' or complex64 '<c8')", ErrNPY, descr)
	}
	shape := hdr.Descr.Shape
	n := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("%w: negative dim in shape %v", ErrNPY, shape)
		}
		if d > 0 && n > math.MaxInt/16/d {
			return nil, fmt.Errorf("%w: shape %v has too many elements", ErrNPY, shape)
		}
		n *= d
	}
	if err := CheckAlloc(dt, shape...); err != nil {
		return nil, fmt.Errorf("%w: shape %v: %w", ErrNPY, shape, err)
	}
	fileShape := append([]int(nil), shape...)
	if hdr.Descr.Fortran {
		// Column-major: the data are the row-major elements of the transpose.
		for i, j := 0, len(fileShape)-1; i < j; i, j = i+1, j-1 {
			fileShape[i], fileShape[j] = fileShape[j], fileShape[i]
		}
	}
	var t *Dense
	if dt.IsSingle() {
		t, err = readElements(r, dt, n, fileShape, order.Uint32)
	} else {
		t, err = readElements(r, dt, n, fileShape, order.Uint64)
	}
	if err != nil {
		return nil, err
	}
	if hdr.Descr.Fortran && len(shape) > 1 {
		axes := make([]int, len(shape))
		for k := range axes {
			axes[k] = len(shape) - 1 - k
		}
		v, err := t.Permute(axes...)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNPY, err)
		}
		t = v.Clone()
	}
	return t, nil
}

// readNPYHeader reads the preamble and header of a .npy stream, checks the magic
// and bounds the header length itself, and parses the header with npyio.
func readNPYHeader(r io.Reader) (hdr npy.Header, err error) {
	var pre [12]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return hdr, npyReadErr("the preamble", err)
	}
	if !bytes.Equal(pre[:6], npyMagic[:]) {
		return hdr, fmt.Errorf("%w: no NumPy magic string", ErrNPY)
	}
	var hlen, plen int
	switch pre[6] {
	case 1:
		plen = 10
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return hdr, npyReadErr("the header length", err)
		}
		hlen = int(bin.LittleEndian.Uint16(pre[8:10]))
	case 2:
		plen = 12
		if _, err := io.ReadFull(r, pre[8:12]); err != nil {
			return hdr, npyReadErr("the header length", err)
		}
		hlen = int(bin.LittleEndian.Uint32(pre[8:12]))
	default:
		return hdr, fmt.Errorf("%w: format version %d.%d (want 1.0 or 2.0)", ErrNPY, pre[6], pre[7])
	}
	if hlen > maxNPYHeader {
		return hdr, fmt.Errorf("%w: header of %d bytes (at most %d)", ErrNPY, hlen, maxNPYHeader)
	}
	buf := make([]byte, plen+hlen)
	copy(buf, pre[:plen])
	if _, err := io.ReadFull(r, buf[plen:]); err != nil {
		return hdr, npyReadErr("the header", err)
	}
	// npyio slices the header by the positions of its keys and assumes they are in
	// numpy's order: check that first, so that its parser sees only well-formed
	// dictionaries.
	text := buf[plen:]
	end := bytes.LastIndexByte(text, '\n')
	if end < 0 {
		return hdr, fmt.Errorf("%w: header without a final newline", ErrNPY)
	}
	if !wellFormedHeader(string(text[:end])) {
		return hdr, fmt.Errorf("%w: header %q is not numpy's dictionary of descr, fortran_order and shape", ErrNPY, truncate(string(text[:end]), 120))
	}
	rd, err := parseNPYHeader(buf)
	if err != nil {
		return hdr, fmt.Errorf("%w: %w", ErrNPY, err)
	}
	return rd.Header, nil
}

// parseNPYHeader runs npyio's header parser on a complete preamble and header; a
// panic of the parser on input it does not expect becomes an error.
func parseNPYHeader(b []byte) (rd *npy.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("malformed header (%v)", p)
		}
	}()
	return npy.NewReader(bytes.NewReader(b))
}

// wellFormedHeader reports whether h (without its final newline) is a dictionary
// {'descr': ..., 'fortran_order': ..., 'shape': (...), } in numpy's key order, the
// form npyio parses.
func wellFormedHeader(h string) bool {
	h = strings.TrimRight(h, " ")
	d := strings.Index(h, "'descr': ")
	o := strings.Index(h, "'fortran_order': ")
	s := strings.Index(h, "'shape': ")
	c := strings.Index(h, "}")
	if !strings.HasPrefix(h, "{") || d < 0 || o < 0 || s < 0 || c < 0 {
		return false
	}
	if !(d < o && o < s && s < c && c == len(h)-1) {
		return false
	}
	// Between the keys, ", " separators as npyio expects; the shape a parenthesised
	// tuple followed by ", ".
	if d+len("'descr': ") > o-2 || h[o-2:o] != ", " || o+len("'fortran_order': ") > s-2 || h[s-2:s] != ", " {
		return false
	}
	shape := h[s+len("'shape': ") : c]
	if !strings.HasSuffix(shape, ", ") {
		return false
	}
	shape = strings.TrimSuffix(shape, ", ")
	return len(shape) >= 2 && shape[0] == '(' && shape[len(shape)-1] == ')' && !strings.ContainsAny(shape[1:len(shape)-1], "()")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// npyReadErr wraps an error met reading part of a .npy stream: a short stream is
// malformed input (ErrNPY); another error is the reader's, wrapped with ErrNPY too.
func npyReadErr(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the input ends in %s", ErrNPY, what)
	}
	return fmt.Errorf("%w: reading %s: %w", ErrNPY, what, err)
}

// readElements reads the n elements of a contiguous tensor of dtype dt and the
// given shape from r. Whatever the dtype they are a run of words W of the size of
// dt's real parts (two to a complex element, as in NumPy's layout), each decoded by
// decode; the words read are the tensor's storage, uncopied.
func readElements[W uint32 | uint64](r io.Reader, dt DType, n int, shape []int, decode func([]byte) W) (*Dense, error) {
	words := n
	if dt.IsComplex() {
		words = 2 * n
	}
	ws, err := readWords(r, words, decode)
	if err != nil {
		return nil, err
	}
	t := &Dense{dtype: dt, data: rawSlice{ptr: unsafe.Pointer(unsafe.SliceData(ws)), len: n, cap: n}}
	t.setContiguous(shape)
	return t, nil
}

// readWords reads n words, each decoded by decode, in chunks, so that a header
// promising more data than r holds costs no more memory than r's data.
func readWords[W uint32 | uint64](r io.Reader, n int, decode func([]byte) W) ([]W, error) {
	const chunk = 1 << 13
	var z W
	size := int(unsafe.Sizeof(z))
	vals := make([]W, 0, min(n, chunk))
	buf := make([]byte, size*min(n, chunk))
	for len(vals) < n {
		k := min(n-len(vals), chunk)
		if _, err := io.ReadFull(r, buf[:size*k]); err != nil {
			return nil, npyReadErr(fmt.Sprintf("the data (%d of %d values read)", len(vals), n), err)
		}
		for i := range k {
			vals = append(vals, decode(buf[size*i:]))
		}
	}
	return vals, nil
}

// SaveNPZ writes arrays to w as a NumPy .npz archive (what numpy.savez writes: a zip
// of uncompressed .npy members, one per name, "name.npy"), in the order of their
// names; numpy.load reads it back as a mapping from name to array. A nil tensor or
// an empty name is an error wrapping chainrules.ErrInvalidArgument.
func SaveNPZ(w io.Writer, arrays map[string]*Dense) error {
	names := make([]string, 0, len(arrays))
	for name, t := range arrays {
		if name == "" || t == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "tensor.SaveNPZ: array %q is nil or unnamed", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	zw := zip.NewWriter(w)
	for _, name := range names {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if err := SaveNPY(f, arrays[name]); err != nil {
			return err
		}
	}
	return zw.Close()
}

// LoadNPZ reads the float64, complex128, float32 and complex64 arrays of a NumPy
// .npz archive of size
// bytes (numpy.savez or savez_compressed, or SaveNPZ), read through
// codeberg.org/sbinet/npyio's npz reader, keyed by their names without ".npy". A
// member that is not such an array, or input that is not a zip archive, is an error
// wrapping ErrNPY (naming the member); it never panics.
func LoadNPZ(r io.ReaderAt, size int64) (map[string]*Dense, error) {
	zr, err := npz.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNPY, err)
	}
	out := map[string]*Dense{}
	for _, key := range zr.Keys() {
		rc, err := zr.Open(key)
		if err != nil {
			return nil, fmt.Errorf("%w: member %q: %w", ErrNPY, key, err)
		}
		t, err := LoadNPY(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		out[strings.TrimSuffix(key, ".npy")] = t
	}
	return out, nil
}
