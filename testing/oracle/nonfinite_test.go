package oracle

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzQuoteNonFinite checks that quoteNonFinite leaves valid JSON untouched (valid
// JSON has no bare non-finite token), never panics, and that quoting the bare
// tokens of an array of numbers yields valid JSON.
func FuzzQuoteNonFinite(f *testing.F) {
	for _, s := range []string{
		`[1, NaN, -Infinity, Infinity]`, `{"a": "NaN", "b": [NaN]}`, `"\"NaN"`, `[NaNa]`,
		`{"x": "\\", "y": NaN}`, `-Infinit`, `[-Infinity,Infinity]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := quoteNonFinite(b)
		if json.Valid(b) && !bytes.Equal(got, b) {
			t.Fatalf("valid JSON %q changed to %q", b, got)
		}
		if !json.Valid(b) && json.Valid(got) && !bytes.Contains(got, []byte(`"NaN"`)) &&
			!bytes.Contains(got, []byte(`"Infinity"`)) && !bytes.Contains(got, []byte(`"-Infinity"`)) {
			t.Fatalf("invalid %q became valid %q without a quoted token", b, got)
		}
	})
}

func TestQuoteNonFinite(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1, NaN, -Infinity, Infinity]`, `[1, "NaN", "-Infinity", "Infinity"]`},
		{`{"a": "NaN", "b": [NaN]}`, `{"a": "NaN", "b": ["NaN"]}`},
		{`{"a": "x\"NaN", "b":NaN}`, `{"a": "x\"NaN", "b":"NaN"}`},
		{`[NaNa, -Infinity]`, `[NaNa, "-Infinity"]`},
		{`[1, 2]`, `[1, 2]`},
	}
	for _, tc := range tests {
		if got := string(quoteNonFinite([]byte(tc.in))); got != tc.want {
			t.Errorf("quoteNonFinite(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
