package oracle_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// families are the op families of the PyTorch reference cases (the directories of
// ../shared/oracles/cases).
var families = []string{
	"__radd__", "__rdiv__", "__rmod__", "__rmul__", "__rpow__", "__rsub__", "abs", "acos",
	"acosh", "add", "amax", "amin", "angle", "asin", "asinh", "atan",
	"atan2", "atanh", "cdouble", "ceil", "cholesky", "cholesky_ex", "clamp_max", "clamp_min",
	"complex", "cond", "conj", "conj_physical", "copysign", "cos", "cosh", "cross",
	"deg2rad", "det", "diagonal", "digamma", "div_no_rounding_mode", "double", "eig", "eigh",
	"eigvals", "eigvalsh", "erf", "erfc", "erfinv", "exp", "exp2", "expm1",
	"fill", "float_power", "floor", "fmax", "fmin", "frac", "frexp", "householder_product",
	"hypot", "i0", "imag", "inv", "inv_ex", "ldexp", "lgamma", "log",
	"log10", "log1p", "log2", "logaddexp", "logit", "lstsq_grad_oriented", "lu", "lu_factor",
	"lu_factor_ex", "lu_solve", "matrix_exp", "matrix_norm", "matrix_power", "max_binary", "maximum", "mean",
	"min_binary", "minimum", "mul", "multi_dot", "mvlgamma_mvlgamma_p_1", "mvlgamma_mvlgamma_p_3", "mvlgamma_mvlgamma_p_5", "nan_to_num",
	"nanmean", "nansum", "neg", "nn_functional_celu", "nn_functional_elu", "nn_functional_hardshrink", "nn_functional_hardsigmoid", "nn_functional_hardtanh",
	"nn_functional_logsigmoid", "nn_functional_mish", "nn_functional_prelu", "nn_functional_relu", "nn_functional_relu6", "nn_functional_rrelu", "nn_functional_selu", "nn_functional_silu",
	"nn_functional_softplus", "nn_functional_softshrink", "nn_functional_softsign", "nn_functional_tanhshrink", "nn_functional_threshold", "norm", "pinv", "pinv_hermitian",
	"polar", "polygamma_polygamma_n_0", "polygamma_polygamma_n_1", "polygamma_polygamma_n_2", "polygamma_polygamma_n_3", "polygamma_polygamma_n_4", "positive", "pow",
	"prod", "qr", "rad2deg", "real", "reciprocal", "round", "round_decimals_0", "round_decimals_3",
	"round_decimals_neg_3", "rsqrt", "rsub", "sgn", "sigmoid", "sign", "sin", "sinc",
	"sinh", "slogdet", "solve", "solve_ex", "special_entr", "special_erfcx", "special_i0e", "special_i1",
	"special_i1e", "special_log_ndtr", "special_ndtr", "special_ndtri", "special_polygamma_special_polygamma_n_0", "special_xlog1py", "sqrt", "square",
	"std", "std_unbiased", "sub", "sum", "svd", "svdvals", "tan", "tanh",
	"tensorinv", "tensorsolve", "true_divide", "trunc", "vander", "var", "var_unbiased", "vecdot",
	"vector_norm", "xlogy",
}

// leftOut are the families that no package replays, with the reason (none at
// present; the complex128 cases of eig and eigvals are skipped inside linalg's
// replay, since their complex input needs a complex eigensolver that gonum lacks).
var leftOut = map[string]string{}

// TestEveryFamilyIsReplayedOrLeftOutWithAReason checks that each reference family
// is vendored under some package's testdata (whose oracle test replays every file
// it vendors) or listed in leftOut, and not both.
func TestEveryFamilyIsReplayedOrLeftOutWithAReason(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	vendored := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || filepath.Base(filepath.Dir(path)) != "cases" {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		// testing/oracle's own testdata exercises the replayer, not an op package.
		if filepath.ToSlash(filepath.Dir(filepath.Dir(rel))) != "testing/oracle/testdata" {
			vendored[d.Name()] = append(vendored[d.Name()], filepath.ToSlash(rel))
		}
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, f := range families {
		_, out := leftOut[f]
		switch in := vendored[f]; {
		case len(in) > 0 && out:
			t.Errorf("%s is replayed (%v) and listed as left out", f, in)
		case len(in) == 0 && !out:
			t.Errorf("%s is neither replayed nor listed as left out with a reason", f)
		case len(in) > 0:
			replayed++
		}
	}
	for f := range leftOut {
		if !slices.Contains(families, f) {
			t.Errorf("leftOut names %s, which is not a reference family", f)
		}
	}
	for f, in := range vendored {
		if !slices.Contains(families, f) {
			t.Errorf("%v vendors %s, which is not a reference family", in, f)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("not at the module root: %v", err)
	}
	t.Logf("%d of %d reference families replayed", replayed, len(families))
}
