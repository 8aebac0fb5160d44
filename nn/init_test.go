package nn_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestFans(t *testing.T) {
	cases := []struct {
		shape       []int
		fanIn, fout int
	}{
		{[]int{3, 5}, 5, 3},              // Linear(5, 3)
		{[]int{8, 4, 3}, 12, 24},         // Conv1d(4, 8, 3)
		{[]int{16, 3, 5, 5}, 75, 400},    // Conv2d(3, 16, 5)
		{[]int{6, 2, 3, 4, 5}, 120, 360}, // Conv3d(2 per group, 6, (3, 4, 5))
		{[]int{7, 0}, 0, 7},
	}
	for _, c := range cases {
		fi, fo, err := nn.Fans(c.shape)
		if err != nil || fi != c.fanIn || fo != c.fout {
			t.Errorf("Fans(%v) = %d, %d, %v; want %d, %d", c.shape, fi, fo, err, c.fanIn, c.fout)
		}
	}
	for _, sh := range [][]int{nil, {4}} {
		if _, _, err := nn.Fans(sh); !errors.Is(err, cr.ErrInvalidArgument) {
			t.Errorf("Fans(%v): error %v, want ErrInvalidArgument", sh, err)
		}
	}
}

func TestCalculateGain(t *testing.T) {
	cases := []struct {
		name  string
		param []float64
		want  float64
	}{
		{"linear", nil, 1}, {"conv2d", nil, 1}, {"conv_transpose3d", nil, 1}, {"sigmoid", nil, 1},
		{"tanh", nil, 5.0 / 3}, {"relu", nil, math.Sqrt2}, {"selu", nil, 0.75},
		{"leaky_relu", nil, math.Sqrt(2 / (1 + 0.01*0.01))},
		{"leaky_relu", []float64{0}, math.Sqrt2},
		{"leaky_relu", []float64{math.Sqrt(5)}, math.Sqrt(1.0 / 3)},
	}
	for _, c := range cases {
		got, err := nn.CalculateGain(c.name, c.param...)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("CalculateGain(%q, %v) = %v, %v; want %v", c.name, c.param, got, err, c.want)
		}
	}
	if _, err := nn.CalculateGain("swish"); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Errorf("CalculateGain(swish): error %v", err)
	}
}

// moments returns the mean, the variance and the largest |x| of xs.
func moments(xs []float64) (mean, variance, maxAbs float64) {
	for _, x := range xs {
		mean += x
		maxAbs = max(maxAbs, math.Abs(x))
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1), maxAbs
}

// checkUniform checks that xs look like n independent draws from U(-bound, bound):
// inside the bounds, reaching near them, with mean 0 and variance bound^2/3 within 5
// standard errors.
func checkUniform(t *testing.T, name string, xs []float64, bound float64) {
	t.Helper()
	n := float64(len(xs))
	mean, variance, maxAbs := moments(xs)
	v := bound * bound / 3
	// var(U^2) for U on (-b, b) is b^4/5 - b^4/9 = 4 b^4 / 45.
	seVar := math.Sqrt(4 * bound * bound * bound * bound / 45 / n)
	switch {
	case maxAbs > bound:
		t.Errorf("%s: |x| reaches %v beyond the bound %v", name, maxAbs, bound)
	case maxAbs < bound*(1-20/n):
		t.Errorf("%s: |x| only reaches %v, bound %v", name, maxAbs, bound)
	case math.Abs(mean) > 5*math.Sqrt(v/n):
		t.Errorf("%s: mean %v, want 0 (standard error %v)", name, mean, math.Sqrt(v/n))
	case math.Abs(variance-v) > 5*seVar:
		t.Errorf("%s: variance %v, want %v (standard error %v)", name, variance, v, seVar)
	}
}

// checkNormal checks that xs look like draws from N(0, std^2): mean, variance and
// kurtosis (3 for a normal, 1.8 for a uniform) within 5 standard errors.
func checkNormal(t *testing.T, name string, xs []float64, std float64) {
	t.Helper()
	n := float64(len(xs))
	mean, variance, _ := moments(xs)
	var m4 float64
	for _, x := range xs {
		m4 += math.Pow(x-mean, 4)
	}
	kurt := m4 / n / (variance * variance)
	v := std * std
	switch {
	case math.Abs(mean) > 5*std/math.Sqrt(n):
		t.Errorf("%s: mean %v, want 0", name, mean)
	case math.Abs(variance-v) > 5*v*math.Sqrt(2/n):
		t.Errorf("%s: variance %v, want %v", name, variance, v)
	case math.Abs(kurt-3) > 5*math.Sqrt(24/n):
		t.Errorf("%s: kurtosis %v, want 3", name, kurt)
	}
}

func TestInitDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	shape := []int{64, 32, 3, 3} // fan_in 288, fan_out 576; 18432 draws
	fanIn, fanOut := 32*9.0, 64*9.0
	fill := func(f func(x *tensor.Dense) error) []float64 {
		x := tensor.New(tensor.Float64, shape...)
		if err := f(x); err != nil {
			t.Fatal(err)
		}
		return x.Float64s()
	}
	checkUniform(t, "Uniform", fill(func(x *tensor.Dense) error { return nn.Uniform(rng, x, -0.3, 0.3) }), 0.3)
	checkNormal(t, "Normal", fill(func(x *tensor.Dense) error { return nn.Normal(rng, x, 0, 0.7) }), 0.7)
	checkUniform(t, "XavierUniform", fill(func(x *tensor.Dense) error { return nn.XavierUniform(rng, x, 2) }), 2*math.Sqrt(6/(fanIn+fanOut)))
	checkNormal(t, "XavierNormal", fill(func(x *tensor.Dense) error { return nn.XavierNormal(rng, x, 1) }), math.Sqrt(2/(fanIn+fanOut)))
	checkUniform(t, "KaimingUniform", fill(func(x *tensor.Dense) error { return nn.KaimingUniform(rng, x, nn.KaimingConfig{}) }), math.Sqrt(6/fanIn))
	checkUniform(t, "KaimingUniform fan_out tanh", fill(func(x *tensor.Dense) error {
		return nn.KaimingUniform(rng, x, nn.KaimingConfig{Mode: nn.FanOut, Nonlinearity: "tanh"})
	}), math.Sqrt(3)*5.0/3/math.Sqrt(fanOut))
	checkNormal(t, "KaimingNormal", fill(func(x *tensor.Dense) error { return nn.KaimingNormal(rng, x, nn.KaimingConfig{}) }), math.Sqrt(2/fanIn))
	checkNormal(t, "KaimingNormal leaky", fill(func(x *tensor.Dense) error {
		return nn.KaimingNormal(rng, x, nn.KaimingConfig{A: 0.2, Mode: nn.FanOut})
	}), math.Sqrt(2/(1+0.04))/math.Sqrt(fanOut))
	z := fill(func(x *tensor.Dense) error {
		if err := nn.Uniform(rng, x, 1, 2); err != nil {
			return err
		}
		return nn.Zeros(x)
	})
	if slices.ContainsFunc(z, func(v float64) bool { return v != 0 }) {
		t.Error("Zeros left a non-zero")
	}
}

// TestInitLayers checks PyTorch's default Linear and ConvNd initialisation: shapes,
// and weight and bias within 1/sqrt(fan_in) with the variance of that uniform.
func TestInitLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w, b, err := nn.InitLinear(rng, 400, 300, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Shape(), []int{300, 400}) || !slices.Equal(b.Shape(), []int{300}) {
		t.Fatalf("Linear(400, 300): weight %v, bias %v", w.Shape(), b.Shape())
	}
	checkUniform(t, "Linear weight", w.Float64s(), 1/math.Sqrt(400))
	if _, _, maxAbs := moments(b.Float64s()); maxAbs > 1/math.Sqrt(400) || maxAbs < 0.9/math.Sqrt(400) {
		t.Errorf("Linear bias reaches %v, bound %v", maxAbs, 1/math.Sqrt(400))
	}
	w, b, err = nn.InitConv(rng, 32, 64, []int{5, 5}, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Shape(), []int{64, 16, 5, 5}) || !slices.Equal(b.Shape(), []int{64}) {
		t.Fatalf("Conv2d(32, 64, 5, groups 2): weight %v, bias %v", w.Shape(), b.Shape())
	}
	bound := 1 / math.Sqrt(16*25)
	checkUniform(t, "Conv2d weight", w.Float64s(), bound)
	if _, _, maxAbs := moments(b.Float64s()); maxAbs > bound || maxAbs < 0.8*bound {
		t.Errorf("Conv2d bias reaches %v, bound %v", maxAbs, bound)
	}
	if _, b, err := nn.InitConv(rng, 3, 8, []int{3}, 1, false); err != nil || b != nil {
		t.Errorf("InitConv without bias: bias %v, err %v", b, err)
	}
	// The same seed draws the same parameters.
	w1, b1, _ := nn.InitLinear(rand.New(rand.NewPCG(9, 9)), 7, 5, true)
	w2, b2, _ := nn.InitLinear(rand.New(rand.NewPCG(9, 9)), 7, 5, true)
	if !slices.Equal(w1.Float64s(), w2.Float64s()) || !slices.Equal(b1.Float64s(), b2.Float64s()) {
		t.Error("InitLinear with the same seed drew different parameters")
	}
}

func TestInitErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := func() *tensor.Dense { return tensor.New(tensor.Float64, 3, 4) }
	tr, err := m().Transpose(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func() error{
		"uniform nil rng":        func() error { return nn.Uniform(nil, m(), 0, 1) },
		"uniform b < a":          func() error { return nn.Uniform(rng, m(), 1, 0) },
		"uniform non-contiguous": func() error { return nn.Uniform(rng, tr, 0, 1) },
		"uniform complex":        func() error { return nn.Uniform(rng, tensor.New(tensor.Complex128, 2), 0, 1) },
		"uniform nil":            func() error { return nn.Uniform(rng, nil, 0, 1) },
		"normal negative std":    func() error { return nn.Normal(rng, m(), 0, -1) },
		"zeros non-contiguous":   func() error { return nn.Zeros(tr) },
		"xavier vector":          func() error { return nn.XavierUniform(rng, tensor.New(tensor.Float64, 4), 1) },
		"xavier negative gain":   func() error { return nn.XavierNormal(rng, m(), -1) },
		"kaiming vector":         func() error { return nn.KaimingUniform(rng, tensor.New(tensor.Float64, 4), nn.KaimingConfig{}) },
		"kaiming bad mode":       func() error { return nn.KaimingNormal(rng, m(), nn.KaimingConfig{Mode: 7}) },
		"kaiming bad nonlinear":  func() error { return nn.KaimingNormal(rng, m(), nn.KaimingConfig{Nonlinearity: "gelu"}) },
		"linear negative size":   func() error { _, _, err := nn.InitLinear(rng, -1, 3, true); return err },
		"linear nil rng":         func() error { _, _, err := nn.InitLinear(nil, 2, 3, true); return err },
		"conv groups":            func() error { _, _, err := nn.InitConv(rng, 3, 8, []int{3}, 2, true); return err },
		"conv empty kernel":      func() error { _, _, err := nn.InitConv(rng, 3, 8, nil, 1, true); return err },
		"conv zero kernel":       func() error { _, _, err := nn.InitConv(rng, 3, 8, []int{3, 0}, 1, true); return err },
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, cr.ErrInvalidArgument) {
				t.Fatalf("error %v, want one wrapping %v", err, cr.ErrInvalidArgument)
			}
		})
	}
	// A tensor of no elements is left alone, as torch does.
	if err := nn.KaimingUniform(rng, tensor.New(tensor.Float64, 0, 3), nn.KaimingConfig{}); err != nil {
		t.Errorf("KaimingUniform on [0 3]: %v", err)
	}
}

// WithDType gives the layer of the same seed in float32: the float64 draws
// rounded once, weight and bias; float64 is the default; any other dtype is an
// error naming the function and the dtype.
func TestInitDType(t *testing.T) {
	type initFn func(rng *rand.Rand, opts ...nn.InitOption) (w, b *tensor.Dense, err error)
	for name, f := range map[string]initFn{
		"InitLinear": func(rng *rand.Rand, opts ...nn.InitOption) (w, b *tensor.Dense, err error) {
			return nn.InitLinear(rng, 5, 3, true, opts...)
		},
		"InitConv": func(rng *rand.Rand, opts ...nn.InitOption) (w, b *tensor.Dense, err error) {
			return nn.InitConv(rng, 4, 6, []int{3, 2}, 2, true, opts...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			w64, b64, err := f(rand.New(rand.NewPCG(7, 8)))
			if err != nil || w64.DType() != tensor.Float64 || b64.DType() != tensor.Float64 {
				t.Fatalf("default: %v, %v, %v", w64, b64, err)
			}
			w32, b32, err := f(rand.New(rand.NewPCG(7, 8)), nn.WithDType(tensor.Float32))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range [][2]*tensor.Dense{{w64, w32}, {b64, b32}} {
				if p[1].DType() != tensor.Float32 || !slices.Equal(p[0].Shape(), p[1].Shape()) {
					t.Fatalf("float32 parameter %s for %s", p[1].Describe(), p[0].Describe())
				}
				for i, v := range p[0].Float64s() {
					if got := p[1].Float32s()[i]; got != float32(v) {
						t.Fatalf("element %d is %v, want float32(%v)", i, got, v)
					}
				}
			}
			for _, dt := range []tensor.DType{tensor.Complex128, tensor.Complex64, tensor.DType(0)} {
				_, _, err := f(rand.New(rand.NewPCG(7, 8)), nn.WithDType(dt))
				if !errors.Is(err, cr.ErrInvalidArgument) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), dt.String()) {
					t.Errorf("WithDType(%s): error %v, want ErrInvalidArgument naming nn.%s and the dtype", dt, err, name)
				}
			}
		})
	}
}
