package tensor_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npy"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// sameTensor reports whether a and b have the same dtype, shape and elements
// (bitwise, so that NaNs and signed zeros count).
func sameTensor(a, b *tensor.Dense) bool {
	if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
		return false
	}
	if a.DType().IsSingle() {
		// Widening is exact and keeps NaN payloads' sign bits and signed zeros.
		var err error
		wide := tensor.Float64
		if a.DType().IsComplex() {
			wide = tensor.Complex128
		}
		if a, err = tensor.AsType(a, wide); err != nil {
			return false
		}
		if b, err = tensor.AsType(b, wide); err != nil {
			return false
		}
	}
	if a.DType() == tensor.Complex128 {
		x, y := a.Complex128s(), b.Complex128s()
		for i := range x {
			if math.Float64bits(real(x[i])) != math.Float64bits(real(y[i])) || math.Float64bits(imag(x[i])) != math.Float64bits(imag(y[i])) {
				return false
			}
		}
		return true
	}
	x, y := a.Float64s(), b.Float64s()
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// mustFrom is tensor.FromSlice that fails the test on an error.
func mustFrom[T tensor.Numeric](t *testing.T, data []T, shape ...int) *tensor.Dense {
	t.Helper()
	d, err := tensor.FromSlice(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// negZeroMinus3i is Python's -3j: the negation of 0+3j, with a negative zero real part.
var negZeroMinus3i = complex(math.Copysign(0, -1), -3)

func mustFromFloat64(t *testing.T, data []float64, shape ...int) *tensor.Dense {
	t.Helper()
	d, err := tensor.FromFloat64(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The reference files numpy wrote (testdata/gen_npy_ref.py) load with their shape,
// dtype and values.
func TestLoadNPYNumpyReference(t *testing.T) {
	f8 := mustFromFloat64(t, []float64{-0.5, -0.25, 0, 0.25, 0.5, 0.75}, 2, 3)
	fortran := make([]float64, 12)
	for i := range fortran {
		fortran[i] = 1.5 * float64(i)
	}
	c16, _ := tensor.FromComplex128([]complex128{1 + 2i, negZeroMinus3i, 0.5, 4 - 1i}, 2, 2)
	empty, _ := tensor.FromFloat64(nil, 0, 3)
	cases := map[string]*tensor.Dense{
		"ref_f8.npy":         f8,
		"ref_f8_fortran.npy": mustFromFloat64(t, fortran, 2, 3, 2),
		"ref_f8_be.npy":      mustFromFloat64(t, []float64{1, -2, 3.25, 1e300}, 4),
		"ref_c16.npy":        c16,
		"ref_scalar.npy":     tensor.Scalar(2.5),
		"ref_empty.npy":      empty,
		"ref_f4.npy":         mustFrom(t, []float32{1, 2}, 2),
		"ref_f4_be.npy":      mustFrom(t, []float32{0.1, -2.5, 3e38}, 3),
		"ref_c8.npy":         mustFrom(t, []complex64{1 + 2i, complex(float32(math.Copysign(0, -1)), -0.5)}, 2, 1),
	}
	for name, want := range cases {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := tensor.LoadNPY(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !sameTensor(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		if !got.IsContiguous() {
			t.Errorf("%s: not contiguous", name)
		}
	}
	f, err := os.Open(filepath.Join("testdata", "ref_i8.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := tensor.LoadNPY(f); !errors.Is(err, tensor.ErrNPY) || !errors.Is(err, cr.ErrInvalidArgument) || !strings.Contains(err.Error(), "<i8") {
		t.Errorf("int64 file: %v, want ErrNPY naming the dtype", err)
	}
}

// SaveNPY then LoadNPY is the identity, for float64 and complex128, every rank from
// 0 to 4, empty tensors and strided views; numpy's files saved again are
// byte-identical where numpy wrote the same header (C order, little-endian).
func TestNPYRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cases []*tensor.Dense
	for _, dt := range tensor.AllDTypes() {
		for _, shape := range [][]int{{}, {1}, {5}, {2, 3}, {3, 1, 4}, {2, 2, 3, 2}, {0}, {2, 0, 3}} {
			cases = append(cases, tensor.RandN(rng, dt, shape...))
		}
	}
	v, _ := tensor.RandN(rng, tensor.Float64, 3, 4).Transpose(0, 1)
	cases = append(cases, v, mustFromFloat64(t, []float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64}, 4))
	for _, dt := range tensor.AllDTypes() {
		// A contiguous view that starts inside its storage (rows 1 and 2 of 3), and
		// more words than one chunk of the writer and the reader (8192).
		rows, err := tensor.RandN(rng, dt, 3, 4).Slice(0, 1, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, rows, tensor.RandN(rng, dt, 3, 3001))
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := tensor.SaveNPY(&buf, c); err != nil {
			t.Fatal(err)
		}
		if buf.Len()%16 != 0 && c.Size() == 0 {
			t.Errorf("%s: %d bytes", c.Describe(), buf.Len())
		}
		got, err := tensor.LoadNPY(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", c.Describe(), err)
		}
		if !sameTensor(got, c.Clone()) {
			t.Errorf("%s: round trip gave %v, want %v", c.Describe(), got, c)
		}
		// npyio reads our header, and the data start at a multiple of 64 bytes.
		rd, err := npy.NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: npyio: %v", c.Describe(), err)
		}
		if !slices.Equal(rd.Header.Descr.Shape, c.Shape()) && !(c.Rank() == 0 && rd.Header.Descr.Shape == nil) {
			t.Errorf("%s: npyio reads shape %v", c.Describe(), rd.Header.Descr.Shape)
		}
		if data := 8 * c.Size(); c.DType() == tensor.Float64 && (buf.Len()-data)%64 != 0 {
			t.Errorf("%s: header of %d bytes, not a multiple of 64", c.Describe(), buf.Len()-data)
		}
	}
	for _, name := range []string{"ref_f8.npy", "ref_c16.npy", "ref_scalar.npy", "ref_empty.npy", "ref_f4.npy", "ref_c8.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		x, err := tensor.LoadNPY(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tensor.SaveNPY(&buf, x); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), b) {
			t.Errorf("%s saved again differs from numpy's file:\n%q\n%q", name, buf.Bytes(), b)
		}
	}
}

// numpy reads what SaveNPY and SaveNPZ write (when Debian's python with numpy is
// installed).
func TestNumpyLoadsOurFiles(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no numpy")
	}
	dir := t.TempDir()
	z, _ := tensor.FromComplex128([]complex128{1 - 1i, 2.5i, -3, 0}, 2, 1, 2)
	x := mustFromFloat64(t, []float64{1, 2, 3, 4, 5, 6}, 3, 2)
	for name, v := range map[string]*tensor.Dense{"x.npy": x, "z.npy": z, "s.npy": tensor.Scalar(-7)} {
		var buf bytes.Buffer
		if err := tensor.SaveNPY(&buf, v); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := tensor.SaveNPZ(&buf, map[string]*tensor.Dense{"x": x, "z": z}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.npz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, numpy as np
d = sys.argv[1]
x, z, s = (np.load(d + "/" + n) for n in ("x.npy", "z.npy", "s.npy"))
p = np.load(d + "/p.npz")
assert x.dtype == np.float64 and x.shape == (3, 2) and (x == np.arange(1, 7).reshape(3, 2)).all(), x
assert z.dtype == np.complex128 and z.shape == (2, 1, 2) and z[0, 0, 0] == 1 - 1j and z[0, 0, 1] == 2.5j and z[1, 0, 0] == -3, z
assert s.shape == () and s == -7, s
assert sorted(p.files) == ["x", "z"] and (p["x"] == x).all() and (p["z"] == z).all(), p.files
print("ok")
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("numpy on our files: %v\n%s", err, out)
	}
}

func TestNPZ(t *testing.T) {
	for _, name := range []string{"ref_params.npz", "ref_params_compressed.npz"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		m, err := tensor.LoadNPZ(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f8 := mustFromFloat64(t, []float64{-0.5, -0.25, 0, 0.25, 0.5, 0.75}, 2, 3)
		b3 := mustFromFloat64(t, []float64{1, 2, 3}, 3)
		want := map[string]*tensor.Dense{"w": f8, "b": b3}
		if name == "ref_params.npz" {
			c16, _ := tensor.FromComplex128([]complex128{1 + 2i, negZeroMinus3i, 0.5, 4 - 1i}, 2, 2)
			want = map[string]*tensor.Dense{"arr_0": f8, "arr_1": b3, "arr_2": c16}
		}
		if len(m) != len(want) {
			t.Errorf("%s: %d arrays, want %d", name, len(m), len(want))
		}
		for k, w := range want {
			if got, ok := m[k]; !ok || !sameTensor(got, w) {
				t.Errorf("%s[%s] = %v, want %v", name, k, got, w)
			}
		}
		// Round trip.
		var buf bytes.Buffer
		if err := tensor.SaveNPZ(&buf, m); err != nil {
			t.Fatal(err)
		}
		again, err := tensor.LoadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range m {
			if !sameTensor(again[k], w) {
				t.Errorf("%s: round trip of %s", name, k)
			}
		}
	}
	if err := tensor.SaveNPZ(&bytes.Buffer{}, map[string]*tensor.Dense{"x": nil}); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Errorf("nil array: %v", err)
	}
	if _, err := tensor.LoadNPZ(bytes.NewReader([]byte("not a zip")), 9); !errors.Is(err, tensor.ErrNPY) {
		t.Errorf("not a zip: %v", err)
	}
}

// Malformed input is an error wrapping ErrNPY, never a panic or a large allocation.
func TestLoadNPYMalformed(t *testing.T) {
	header := func(version byte, h string) []byte {
		b := []byte("\x93NUMPY")
		b = append(b, version, 0)
		if version == 1 {
			b = append(b, byte(len(h)), byte(len(h)>>8))
		} else {
			b = append(b, byte(len(h)), byte(len(h)>>8), byte(len(h)>>16), byte(len(h)>>24))
		}
		return append(b, h...)
	}
	good := "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n"
	cases := map[string][]byte{
		"empty":              nil,
		"short magic":        []byte("\x93NUM"),
		"wrong magic":        []byte("\x93NUMPZ\x01\x00\x00\x00"),
		"version 9":          header(9, good),
		"no header length":   []byte("\x93NUMPY\x01\x00"),
		"header too long":    append([]byte("\x93NUMPY\x02\x00"), 0xff, 0xff, 0xff, 0x7f),
		"truncated header":   header(1, good)[:30],
		"no newline":         header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"),
		"keys out of order":  header(1, "{'shape': (2,), 'descr': '<f8', 'fortran_order': False, }\n"),
		"no shape":           header(1, "{'descr': '<f8', 'fortran_order': False, }\n"),
		"bad order":          header(1, "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }\n"),
		"bad dim":            header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2x,), }\n"),
		"negative dim":       header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }\n"),
		"huge dims":          header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"),
		"huge but plausible": header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }\n"),
		"dtype int64":        header(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n"),
		"structured dtype":   header(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }\n"),
		"short data":         append(header(1, good), make([]byte, 12)...),
		"shape not a tuple":  header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': 2, }\n"),
		"nested tuple":       header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': ((2,),), }\n"),
	}
	for name, b := range cases {
		got, err := tensor.LoadNPY(bytes.NewReader(b))
		if !errors.Is(err, tensor.ErrNPY) || got != nil {
			t.Errorf("%s: %v, %v; want an error wrapping ErrNPY", name, got, err)
		}
	}
	// The good header with its data loads.
	b := append(header(1, good), make([]byte, 16)...)
	if x, err := tensor.LoadNPY(bytes.NewReader(b)); err != nil || fmt.Sprint(x.Shape()) != "[2]" {
		t.Errorf("good input: %v, %v", x, err)
	}
}

// FuzzLoadNPY feeds LoadNPY arbitrary bytes, seeded with numpy's files: it must
// return a tensor or an error wrapping ErrNPY, never panic; a tensor it returns
// saves and loads back to itself.
func FuzzLoadNPY(f *testing.F) {
	for _, name := range []string{"ref_f8.npy", "ref_f8_fortran.npy", "ref_f8_be.npy", "ref_c16.npy", "ref_scalar.npy", "ref_empty.npy", "ref_f4.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'descr': '<f8'}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := tensor.LoadNPY(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, tensor.ErrNPY) {
				t.Fatalf("error not wrapping ErrNPY: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := tensor.SaveNPY(&buf, x); err != nil {
			t.Fatal(err)
		}
		y, err := tensor.LoadNPY(&buf)
		if err != nil || !sameTensor(x, y) {
			t.Fatalf("round trip of a loaded tensor: %v, %v", y, err)
		}
	})
}

// FuzzLoadNPZ feeds LoadNPZ arbitrary bytes, seeded with numpy's archives.
func FuzzLoadNPZ(f *testing.F) {
	for _, name := range []string{"ref_params.npz", "ref_params_compressed.npz"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := tensor.LoadNPZ(bytes.NewReader(b), int64(len(b))); err != nil && !errors.Is(err, tensor.ErrNPY) {
			t.Fatalf("error not wrapping ErrNPY: %v", err)
		}
	})
}

// Save a tensor in NumPy's format and load it back (numpy.save / numpy.load).
func ExampleSaveNPY() {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	var buf bytes.Buffer // or an *os.File
	if err := tensor.SaveNPY(&buf, x); err != nil {
		fmt.Println(err)
		return
	}
	y, err := tensor.LoadNPY(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(y)
	// Output:
	// float64[2 3] [[1 2 3] [4 5 6]]
}
