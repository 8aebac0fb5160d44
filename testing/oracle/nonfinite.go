package oracle

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Python's json module writes non-finite floats as the bare tokens NaN, Infinity and
// -Infinity, which are not JSON. Parse quotes them outside strings before decoding
// (quoteNonFinite), and tensor elements accept the quoted forms (parseElement);
// anywhere else a quoted token is a decoding error, as a bare one was.

// nonFinite lists the bare tokens and their values.
var nonFinite = []struct {
	token string
	value float64
}{
	{"NaN", math.NaN()},
	{"Infinity", math.Inf(1)},
	{"-Infinity", math.Inf(-1)},
}

// quoteNonFinite returns b with every bare NaN, Infinity and -Infinity token outside
// JSON strings replaced by the same token in quotes. It returns b itself when there
// is none (the common case: one scan of the line).
func quoteNonFinite(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	var out []byte
	last := 0 // b[last:i] is not yet copied to out
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != 'N' && c != 'I' && c != '-' {
			continue
		}
		for _, nf := range nonFinite {
			end := i + len(nf.token)
			if !bytes.HasPrefix(b[i:], []byte(nf.token)) || (end < len(b) && !isDelimiter(b[end])) {
				continue
			}
			out = append(out, b[last:i]...)
			out = append(out, '"')
			out = append(out, nf.token...)
			out = append(out, '"')
			last = end
			i = end - 1
			break
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// isDelimiter reports whether c may follow a JSON value.
func isDelimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// parseElement decodes one real tensor element: a JSON number, or one of the quoted
// non-finite tokens that quoteNonFinite writes.
func parseElement(d json.RawMessage) (float64, error) {
	if len(d) > 0 && d[0] == '"' {
		var s string
		if err := json.Unmarshal(d, &s); err != nil {
			return 0, err
		}
		for _, nf := range nonFinite {
			if s == nf.token {
				return nf.value, nil
			}
		}
		return 0, &strconv.NumError{Func: "oracle element", Num: s, Err: strconv.ErrSyntax}
	}
	var x float64
	err := json.Unmarshal(d, &x)
	return x, err
}
