package nn

import (
	"math"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// This file holds parameter initialisation, as torch.nn.init: functions that fill a
// float64 tensor in place with draws from a *rand.Rand (math/rand/v2), so that a
// seeded source repeats its draws, and the default initialisation of PyTorch's
// Linear and ConvNd layers (float64, or float32 with WithDType). The draws are
// the distributions torch draws from, not torch's random numbers.

// FanMode chooses which fan Kaiming initialisation scales by, as torch's mode
// argument: FanIn ('fan_in', the default) preserves the variance of the forward
// pass, FanOut ('fan_out') that of the backward pass.
type FanMode int

const (
	FanIn  FanMode = iota // 'fan_in'
	FanOut                // 'fan_out'
)

// Fans returns the fan-in and fan-out of a weight of the given shape, as torch's
// _calculate_fan_in_and_fan_out: for a weight [out, in, k_1, ..., k_m] (Linear:
// [out, in]; ConvNd: [out, in/groups, kernel...]) with receptive field
// r = k_1 ... k_m (1 for a matrix),
//
//	fan_in = in r,   fan_out = out r.
//
// A shape of fewer than 2 dimensions has no fans: an error wrapping
// chainrules.ErrInvalidArgument.
func Fans(shape []int) (fanIn, fanOut int, err error) {
	if len(shape) < 2 {
		return 0, 0, cr.Errorf(cr.ErrInvalidArgument, "nn.Fans: shape %v: fan in and fan out need at least 2 dimensions", shape)
	}
	r := 1
	for _, k := range shape[2:] {
		r *= k
	}
	return shape[1] * r, shape[0] * r, nil
}

// CalculateGain returns the recommended gain of a nonlinearity, as torch's
// calculate_gain: 1 for "linear", the conv and conv_transpose names and "sigmoid";
// 5/3 for "tanh"; sqrt(2) for "relu"; 3/4 for "selu"; and for "leaky_relu" with
// negative slope a (param, 0.01 if not given)
//
//	gain = sqrt(2 / (1 + a^2)).
//
// An unknown name is an error wrapping chainrules.ErrInvalidArgument.
func CalculateGain(nonlinearity string, param ...float64) (float64, error) {
	switch nonlinearity {
	case "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid":
		return 1, nil
	case "tanh":
		return 5.0 / 3, nil
	case "relu":
		return math.Sqrt(2.0), nil
	case "leaky_relu":
		a := 0.01
		if len(param) > 0 {
			a = param[0]
		}
		return math.Sqrt(2.0 / (1 + a*a)), nil
	case "selu":
		return 3.0 / 4, nil
	}
	return 0, cr.Errorf(cr.ErrInvalidArgument, "nn.CalculateGain: unsupported nonlinearity %q", nonlinearity)
}

// initData returns the elements of t to fill in place: t must be a contiguous
// float64 tensor.
func initData(op string, t *tensor.Dense) ([]float64, error) {
	if t == nil || t.DType() != tensor.Float64 || !t.IsContiguous() {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "nn.%s: want a contiguous float64 tensor to fill in place", op)
	}
	return t.Float64s(), nil
}

func checkRand(op string, rng *rand.Rand) error {
	if rng == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "nn.%s: nil *rand.Rand (pass a seeded source)", op)
	}
	return nil
}

// Uniform fills t in place with independent draws from U(a, b) (torch's uniform_:
// a + (b - a) u with u uniform on [0, 1)). It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil rng, a tensor that is not contiguous
// float64, or b < a.
func Uniform(rng *rand.Rand, t *tensor.Dense, a, b float64) error {
	x, err := initData("Uniform", t)
	if err != nil {
		return err
	}
	if err := checkRand("Uniform", rng); err != nil {
		return err
	}
	if !(a <= b) || math.IsInf(b-a, 0) {
		return cr.Errorf(cr.ErrInvalidArgument, "nn.Uniform: bounds [%v, %v): want finite a <= b", a, b)
	}
	for i := range x {
		x[i] = a + (b-a)*rng.Float64()
	}
	return nil
}

// Normal fills t in place with independent draws from N(mean, std^2) (torch's
// normal_). It returns an error wrapping chainrules.ErrInvalidArgument for a nil
// rng, a tensor that is not contiguous float64, or a negative std.
func Normal(rng *rand.Rand, t *tensor.Dense, mean, std float64) error {
	x, err := initData("Normal", t)
	if err != nil {
		return err
	}
	if err := checkRand("Normal", rng); err != nil {
		return err
	}
	if !(std >= 0) || math.IsInf(std, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return cr.Errorf(cr.ErrInvalidArgument, "nn.Normal: mean %v, std %v: want finite mean and std >= 0", mean, std)
	}
	for i := range x {
		x[i] = mean + std*rng.NormFloat64()
	}
	return nil
}

// Zeros fills t with zeros in place (torch's zeros_). It returns an error wrapping
// chainrules.ErrInvalidArgument for a tensor that is not contiguous float64.
func Zeros(t *tensor.Dense) error {
	x, err := initData("Zeros", t)
	if err != nil {
		return err
	}
	clear(x)
	return nil
}

// XavierUniform fills t in place as torch's xavier_uniform_ (Glorot and Bengio,
// 2010): U(-a, a) with
//
//	a = gain sqrt(6 / (fan_in + fan_out))
//
// (fans as Fans). A tensor of no elements is left as it is. It returns an error
// wrapping chainrules.ErrInvalidArgument for fewer than 2 dimensions, a negative
// gain, a nil rng or a tensor that is not contiguous float64.
func XavierUniform(rng *rand.Rand, t *tensor.Dense, gain float64) error {
	std, err := xavierStd("XavierUniform", t, gain)
	if err != nil || t.Size() == 0 {
		return err
	}
	a := math.Sqrt(3.0) * std
	return Uniform(rng, t, -a, a)
}

// XavierNormal fills t in place as torch's xavier_normal_: N(0, std^2) with
//
//	std = gain sqrt(2 / (fan_in + fan_out)).
//
// Errors as XavierUniform.
func XavierNormal(rng *rand.Rand, t *tensor.Dense, gain float64) error {
	std, err := xavierStd("XavierNormal", t, gain)
	if err != nil || t.Size() == 0 {
		return err
	}
	return Normal(rng, t, 0, std)
}

func xavierStd(op string, t *tensor.Dense, gain float64) (float64, error) {
	if _, err := initData(op, t); err != nil {
		return 0, err
	}
	fanIn, fanOut, err := Fans(t.Shape())
	if err != nil {
		return 0, err
	}
	if !(gain >= 0) {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "nn.%s: gain %v: want >= 0", op, gain)
	}
	if t.Size() == 0 {
		return 0, nil
	}
	return gain * math.Sqrt(2.0/float64(fanIn+fanOut)), nil
}

// KaimingConfig holds the arguments of torch's kaiming_uniform_ and
// kaiming_normal_; its zero value is torch's defaults (a = 0, mode 'fan_in',
// nonlinearity 'leaky_relu', which with a = 0 is the gain of relu).
type KaimingConfig struct {
	A            float64 // negative slope of the rectifier (leaky_relu only)
	Mode         FanMode // FanIn or FanOut
	Nonlinearity string  // a name CalculateGain knows; "" means "leaky_relu"
}

// KaimingUniform fills t in place as torch's kaiming_uniform_ (He et al., 2015):
// U(-bound, bound) with
//
//	bound = sqrt(3) gain / sqrt(fan),   gain = CalculateGain(nonlinearity, a)
//
// and fan the fan-in or fan-out of t (cfg.Mode; fans as Fans). A tensor of no
// elements is left as it is. It returns an error wrapping
// chainrules.ErrInvalidArgument for fewer than 2 dimensions, an unknown
// nonlinearity or mode, a nil rng or a tensor that is not contiguous float64.
func KaimingUniform(rng *rand.Rand, t *tensor.Dense, cfg KaimingConfig) error {
	std, err := kaimingStd("KaimingUniform", t, cfg)
	if err != nil || t.Size() == 0 {
		return err
	}
	bound := math.Sqrt(3.0) * std
	return Uniform(rng, t, -bound, bound)
}

// KaimingNormal fills t in place as torch's kaiming_normal_: N(0, std^2) with
//
//	std = gain / sqrt(fan).
//
// Errors as KaimingUniform.
func KaimingNormal(rng *rand.Rand, t *tensor.Dense, cfg KaimingConfig) error {
	std, err := kaimingStd("KaimingNormal", t, cfg)
	if err != nil || t.Size() == 0 {
		return err
	}
	return Normal(rng, t, 0, std)
}

func kaimingStd(op string, t *tensor.Dense, cfg KaimingConfig) (float64, error) {
	if _, err := initData(op, t); err != nil {
		return 0, err
	}
	if t.Size() == 0 { // torch: "Initializing zero-element tensors is a no-op"
		return 0, nil
	}
	fanIn, fanOut, err := Fans(t.Shape())
	if err != nil {
		return 0, err
	}
	var fan int
	switch cfg.Mode {
	case FanIn:
		fan = fanIn
	case FanOut:
		fan = fanOut
	default:
		return 0, cr.Errorf(cr.ErrInvalidArgument, "nn.%s: mode %d: want FanIn or FanOut", op, cfg.Mode)
	}
	nl := cfg.Nonlinearity
	if nl == "" {
		nl = "leaky_relu"
	}
	gain, err := CalculateGain(nl, cfg.A)
	if err != nil {
		return 0, err
	}
	return gain / math.Sqrt(float64(fan)), nil
}

// InitOption sets an optional argument of InitLinear and InitConv, as the
// factory keyword arguments of torch.nn.Linear and ConvNd: WithDType.
type InitOption func(*initConfig)

type initConfig struct{ dtype tensor.DType }

// WithDType sets the dtype of the parameters (torch's dtype=, whose default is
// torch.get_default_dtype()): tensor.Float64 (the default here) or
// tensor.Float32, the dtype PyTorch users train in. The values are the float64
// draws rounded once to the dtype, so that one seed gives the same layer in
// either precision up to that rounding:
//
//	W32 = round32(W64),   b32 = round32(b64).
//
// Any other dtype is an error wrapping chainrules.ErrInvalidArgument.
func WithDType(dt tensor.DType) InitOption { return func(c *initConfig) { c.dtype = dt } }

// InitLinear returns the parameters of a torch.nn.Linear(in, out) layer with
// PyTorch's default initialisation, drawn from rng: the weight [out, in] (torch's
// layout: y = x W^T + b) by KaimingUniform with a = sqrt(5), which is
//
//	W ~ U(-1/sqrt(in), 1/sqrt(in)),
//
// and, if bias, the bias [out] ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
// in (bias is nil otherwise), float64 unless WithDType says otherwise. It
// returns an error wrapping chainrules.ErrInvalidArgument for negative sizes, a
// nil rng or a dtype other than float64 and float32.
func InitLinear(rng *rand.Rand, in, out int, bias bool, opts ...InitOption) (weight, b *tensor.Dense, err error) {
	if in < 0 || out < 0 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "nn.InitLinear: in %d, out %d: want sizes >= 0", in, out)
	}
	return initLayer("InitLinear", rng, []int{out, in}, bias, opts)
}

// InitConv returns the parameters of a torch.nn.ConvNd layer (N = len(kernel))
// with PyTorch's default initialisation, drawn from rng: the weight
// [out, in/groups, kernel...] by KaimingUniform with a = sqrt(5), which is
//
//	W ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)),   fan_in = (in/groups) prod(kernel),
//
// and, if bias, the bias [out] ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (nil
// otherwise), float64 unless WithDType says otherwise. It returns an error
// wrapping chainrules.ErrInvalidArgument for sizes < 1, groups that do not
// divide in and out, an empty kernel, a nil rng or a dtype other than float64
// and float32.
func InitConv(rng *rand.Rand, in, out int, kernel []int, groups int, bias bool, opts ...InitOption) (weight, b *tensor.Dense, err error) {
	if in < 1 || out < 1 || groups < 1 || len(kernel) == 0 || in%groups != 0 || out%groups != 0 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "nn.InitConv: in %d, out %d, kernel %v, groups %d: want positive sizes, a kernel of 1 or more dims and groups dividing in and out", in, out, kernel, groups)
	}
	for _, k := range kernel {
		if k < 1 {
			return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "nn.InitConv: kernel %v: want sizes >= 1", kernel)
		}
	}
	return initLayer("InitConv", rng, append([]int{out, in / groups}, kernel...), bias, opts)
}

// initLayer is torch's reset_parameters of Linear and _ConvNd, in the dtype of
// opts: drawn in float64, then rounded.
func initLayer(op string, rng *rand.Rand, shape []int, bias bool, opts []InitOption) (weight, b *tensor.Dense, err error) {
	c := initConfig{dtype: tensor.Float64}
	for _, o := range opts {
		o(&c)
	}
	if c.dtype != tensor.Float64 && c.dtype != tensor.Float32 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "nn.%s: dtype %s: want float64 or float32", op, c.dtype)
	}
	if weight, b, err = initLayer64(op, rng, shape, bias); err != nil || c.dtype == tensor.Float64 {
		return weight, b, err
	}
	if weight, err = tensor.AsType(weight, c.dtype); err != nil {
		return nil, nil, err
	}
	if b != nil {
		if b, err = tensor.AsType(b, c.dtype); err != nil {
			return nil, nil, err
		}
	}
	return weight, b, nil
}

// initLayer64 draws the float64 parameters of initLayer.
func initLayer64(op string, rng *rand.Rand, shape []int, bias bool) (weight, b *tensor.Dense, err error) {
	if err := checkRand(op, rng); err != nil {
		return nil, nil, err
	}
	weight = tensor.New(tensor.Float64, shape...)
	if err := KaimingUniform(rng, weight, KaimingConfig{A: math.Sqrt(5)}); err != nil {
		return nil, nil, err
	}
	if !bias {
		return weight, nil, nil
	}
	fanIn, _, err := Fans(shape)
	if err != nil {
		return nil, nil, err
	}
	bound := 0.0
	if fanIn > 0 {
		bound = 1 / math.Sqrt(float64(fanIn))
	}
	b = tensor.New(tensor.Float64, shape[0])
	if err := Uniform(rng, b, -bound, bound); err != nil {
		return nil, nil, err
	}
	return weight, b, nil
}
