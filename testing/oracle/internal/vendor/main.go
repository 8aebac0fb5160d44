// Command vendor copies oracle case files from a checkout of the shared oracle
// cases into testing/oracle/testdata, gzip-compressed, together with the licences:
//
//	go run ./testing/oracle/internal/vendor -src ../shared/oracles -ops exp,sum,mul
//
// It is run from the module root. Each op's cases/<op>/identity.jsonl becomes
// testdata/cases/<op>/identity.jsonl.gz; the output is deterministic (no
// timestamps in the gzip header), so re-vendoring unchanged cases changes nothing.
package main

import (
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	src := flag.String("src", "../shared/oracles", "directory holding cases/, LICENSE-MIT and LICENSE-APACHE")
	dst := flag.String("dst", "testing/oracle/testdata", "destination directory")
	ops := flag.String("ops", "", "comma-separated op names to vendor (required)")
	flag.Parse()
	if err := run(*src, *dst, *ops); err != nil {
		fmt.Fprintln(os.Stderr, "vendor:", err)
		os.Exit(1)
	}
}

func run(src, dst, ops string) error {
	if strings.TrimSpace(ops) == "" {
		return errors.New("no ops given (-ops exp,sum,...)")
	}
	for _, lic := range []string{"LICENSE-MIT", "LICENSE-APACHE"} {
		if err := copyFile(filepath.Join(src, lic), filepath.Join(dst, lic), false); err != nil {
			return err
		}
	}
	for _, op := range strings.Split(ops, ",") {
		op = strings.TrimSpace(op)
		if op == "" || strings.ContainsAny(op, `/\`) || op == "." || op == ".." {
			return fmt.Errorf("bad op name %q", op)
		}
		in := filepath.Join(src, "cases", op, "identity.jsonl")
		out := filepath.Join(dst, "cases", op, "identity.jsonl.gz")
		if err := copyFile(in, out, true); err != nil {
			return err
		}
		fmt.Println("vendored", out)
	}
	return nil
}

// copyFile copies in to out, gzip-compressing when compress is set.
func copyFile(in, out string, compress bool) (err error) {
	r, err := os.Open(in)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	if !compress {
		_, err = io.Copy(w, r)
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, r); err != nil {
		return err
	}
	return zw.Close()
}
