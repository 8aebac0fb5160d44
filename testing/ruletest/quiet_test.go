package ruletest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestPassingCheckIsQuiet runs a passing Check (with checks that do not apply to
// the op: jacobian without FullJacobianMaxSize, rows, ...) in a child test binary
// and requires that it reports no skipped subtest, so that go test -v prints no
// SKIP line for it, and that the reasons are logged, so that -v still shows them.
func TestPassingCheckIsQuiet(t *testing.T) {
	if os.Getenv("RULETEST_QUIET_CHILD") == "1" {
		ruletest.Check(t, cr.Float64Space{}, maskedMul{}, []float64{1.3, -0.4}, ruletest.Config{})
		return
	}
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPassingCheckIsQuiet$", "-test.v")
	cmd.Env = append(os.Environ(), "RULETEST_QUIET_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child test failed: %v\n%s", err, out)
	}
	s := string(out)
	if strings.Contains(s, "SKIP") {
		t.Errorf("a passing check printed SKIP lines:\n%s", s)
	}
	if !strings.Contains(s, "jacobian: not checked:") {
		t.Errorf("the reason a check did not run is not logged under -v:\n%s", s)
	}
	if !strings.Contains(s, "--- PASS: TestPassingCheckIsQuiet/adjoint-fd") {
		t.Errorf("the checks that ran are not subtests:\n%s", s)
	}
}
