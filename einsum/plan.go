package einsum

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Plan is a spec bound to operand shapes together with its contraction order. It is
// immutable and safe for concurrent use; Eval runs it on any operands of the shapes
// it was made for, float64 or complex128.
type Plan struct {
	spec  string
	b     *bound
	kept  [][]int // labels of each operand after its unary step, in order of first appearance
	sum   [][]int // labels each operand sums out on its own
	path  [][2]int
	flops float64
	algo  PathAlgorithm
}

// NewPlan parses spec, checks it against the operand shapes and chooses the
// contraction order with the Auto algorithm. It returns an error wrapping
// chainrules.ErrInvalidArgument for a malformed spec (naming the character, label
// and operand), for an operand, the result or an intermediate too large for memory
// to hold (as complex128; tensor.CheckAlloc), and chainrules.ErrShapeMismatch for
// shapes that do not fit it.
func NewPlan(spec string, shapes ...[]int) (*Plan, error) {
	return NewPlanWith(spec, Auto, shapes...)
}

// NewPlanWith is NewPlan with an explicit path algorithm.
func NewPlanWith(spec string, algo PathAlgorithm, shapes ...[]int) (*Plan, error) {
	sx, err := parse(spec)
	if err != nil {
		return nil, err
	}
	shs := make([][]int, len(shapes))
	for k, s := range shapes {
		// Eval reads each operand through a contiguous copy, complex128 when
		// another operand is: an operand too large for that (a broadcast view of
		// any size costs nothing) is refused here, as the result is by checkSizes.
		if err := tensor.CheckAlloc(tensor.Complex128, s...); err != nil {
			return nil, fmt.Errorf("einsum %q: operand %d is too large to copy: %w", spec, k, err)
		}
		shs[k] = slices.Clone(s)
	}
	b, err := bind(spec, sx, shs)
	if err != nil {
		return nil, err
	}
	p := newPlan(spec, b, algo)
	if err := p.checkSizes(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkSizes returns an error wrapping chainrules.ErrInvalidArgument if the result,
// or an intermediate of the path, has more elements than an int counts or than
// memory holds (as complex128): label sizes multiply, so operands of valid shapes
// (broadcast views, say) can ask for one. It follows run: each step keeps the labels
// of its two operands that the output or another live operand still needs.
func (p *Plan) checkSizes() error {
	size := func(s lset) (int, bool) {
		n := 1
		for l := range maxLabels {
			if s.has(l) && p.b.size[l] != 0 {
				var ok bool
				if n, ok = tensor.MulSize(n, p.b.size[l]); !ok {
					return 0, false
				}
			}
		}
		b, ok := tensor.MulSize(n, 16)
		return n, ok && b <= tensor.MaxAllocBytes
	}
	out := setOf(p.b.out)
	if _, ok := size(out); !ok {
		return cr.Errorf(cr.ErrInvalidArgument, "einsum %q: the result, of shape %v, is too large", p.spec, p.b.outShape())
	}
	live := make([]lset, len(p.kept))
	for k, kept := range p.kept {
		live[k] = setOf(kept)
	}
	for s, st := range p.path {
		i, j := st[0], st[1]
		need := out
		for q := range live {
			if q != i && q != j {
				need = need.or(live[q])
			}
		}
		z := live[i].or(live[j]).and(need)
		if _, ok := size(z); !ok {
			return cr.Errorf(cr.ErrInvalidArgument, "einsum %q: step %d of the contraction path makes an intermediate too large to hold", p.spec, s)
		}
		live = append(append(append([]lset{}, live[:i]...), live[i+1:j]...), live[j+1:]...)
		live = append(live, z)
	}
	return nil
}

// newPlan schedules the unary steps and the pairwise contractions of b.
func newPlan(spec string, b *bound, algo PathAlgorithm) *Plan {
	p := &Plan{spec: spec, b: b, algo: algo}
	n := len(b.dims)
	outSet := setOf(b.out)
	// A label is summed by its operand alone if no other operand and not the output
	// carries it.
	carriers := make([]int, maxLabels)
	for _, dims := range b.dims {
		s := setOf(dims)
		for l := range maxLabels {
			if s.has(l) {
				carriers[l]++
			}
		}
	}
	sets := make([]lset, n)
	p.kept, p.sum = make([][]int, n), make([][]int, n)
	for k, dims := range b.dims {
		var seen lset
		for _, l := range dims {
			if l < 0 || seen.has(l) {
				continue
			}
			seen.add(l)
			if carriers[l] == 1 && !outSet.has(l) {
				p.sum[k] = append(p.sum[k], l)
			} else {
				p.kept[k] = append(p.kept[k], l)
			}
		}
		sets[k] = setOf(p.kept[k])
	}
	switch {
	case n < 2:
	case algo == Optimal || (algo == Auto && n <= OptimalMaxOperands):
		p.path, p.flops = optimalPath(sets, outSet, &b.size)
	default:
		p.path, p.flops = greedyPath(sets, outSet, &b.size)
	}
	p.flops *= 2
	return p
}

// Path returns the contraction order in the linear form of opt_einsum: step s
// contracts positions Path()[s][0] < Path()[s][1] of the current operand list (the
// operands in order, then the results of earlier steps), removes both and appends
// the result. Operands first lose the labels only they carry (summed) and their
// repeated labels (diagonals); a spec with one operand has an empty path.
func (p *Plan) Path() [][2]int { return slices.Clone(p.path) }

// Flops returns the estimated floating-point operations of the pairwise
// contractions along Path: two (a multiply and an add) per point of each step's
// joint index space, in real arithmetic (a complex multiply-add is four times as
// much work).
func (p *Plan) Flops() float64 { return p.flops }

// Spec returns the spec the plan was made from.
func (p *Plan) Spec() string { return p.spec }

// OutShape returns the shape of the result.
func (p *Plan) OutShape() []int { return p.b.outShape() }

// String describes the plan: spec, path and estimated flops.
func (p *Plan) String() string {
	return fmt.Sprintf("einsum %q: path %v, %.4g flops", p.spec, p.path, p.flops)
}

// Eval contracts operands, which must have the shapes the plan was made for. The
// result is fresh, of the operands' promoted dtype (tensor.ResultDType): float64 if
// every operand is, float32 if every operand is (the contraction then runs on
// float32 GEMM), complex if one is.
func (p *Plan) Eval(operands ...*tensor.Dense) (*tensor.Dense, error) {
	if len(operands) != len(p.b.shapes) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: the plan takes %d operands, got %d", p.spec, len(p.b.shapes), len(operands))
	}
	for k, x := range operands {
		if x == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: operand %d is nil", p.spec, k)
		}
		if !slices.Equal(x.Shape(), p.b.shapes[k]) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: operand %d has shape %v, the plan was made for %v", p.spec, k, x.Shape(), p.b.shapes[k])
		}
	}
	return p.eval(operands), nil
}

// eval runs the plan on operands of the right shapes, in the dtype of their
// promotion (tensor.ResultDType): a single-precision einsum (every operand float32
// or complex64) contracts in single precision, on float32 or complex64 GEMM.
func (p *Plan) eval(operands []*tensor.Dense) *tensor.Dense {
	dt := tensor.Float64
	if len(operands) > 0 {
		dt = operands[0].DType()
	}
	for _, x := range operands[1:] {
		dt = tensor.ResultDType(dt, x.DType())
	}
	switch dt {
	case tensor.Complex128:
		return evalAs(p, operands, dt, (*tensor.Dense).Complex128s)
	case tensor.Float32:
		return evalAs(p, operands, dt, (*tensor.Dense).Float32s)
	case tensor.Complex64:
		return evalAs(p, operands, dt, (*tensor.Dense).Complex64s)
	}
	return evalAs(p, operands, tensor.Float64, (*tensor.Dense).Float64s)
}

// evalAs runs the plan on the operands converted to dt, whose elements elems reads.
func evalAs[T tensor.Numeric](p *Plan, operands []*tensor.Dense, dt tensor.DType, elems func(*tensor.Dense) []T) *tensor.Dense {
	data := make([][]T, len(operands))
	for k, x := range operands {
		if x.DType() != dt {
			x, _ = tensor.AsType(x, dt) // exact: dt is the promotion of x's dtype
		}
		data[k] = elems(x.Contiguous())
	}
	y, _ := tensor.FromSlice(run(p, data), p.b.outShape()...)
	return y
}

// Eval evaluates the einsum spec on operands, NumPy-style:
//
//	out[o] = sum over the labels not in the output of prod_k operand_k[labels of k]
//
// with the plan for spec and these shapes taken from a process-wide cache (made with
// NewPlan on first use). See the package documentation for the spec language.
func Eval(spec string, operands ...*tensor.Dense) (*tensor.Dense, error) {
	for k, x := range operands {
		if x == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: operand %d is nil", spec, k)
		}
	}
	p, err := cachedPlan(spec, operands)
	if err != nil {
		return nil, err
	}
	return p.eval(operands), nil
}

// The plan cache maps a spec and operand shapes to a Plan. It is bounded: when full
// it is emptied, which costs only re-planning.
const cacheMax = 4096

var cache struct {
	sync.RWMutex
	m map[string]*Plan
}

func shapeKey(sb *strings.Builder, shapes ...[]int) {
	for _, s := range shapes {
		sb.WriteByte('|')
		for _, d := range s {
			sb.WriteString(strconv.Itoa(d))
			sb.WriteByte(',')
		}
	}
}

func cacheGet(key string) *Plan {
	cache.RLock()
	p := cache.m[key]
	cache.RUnlock()
	return p
}

func cachePut(key string, p *Plan) {
	cache.Lock()
	if cache.m == nil || len(cache.m) >= cacheMax {
		cache.m = make(map[string]*Plan)
	}
	cache.m[key] = p
	cache.Unlock()
}

// cachedPlan returns the Auto plan of spec for the shapes of operands.
//
// The key is the spec's length, the spec, then the shapes: the spec is not parsed
// yet, so it may hold any byte, and only its length prefix keeps a spec such as
// "ij,jk->ik|2,3," from spelling the key of "ij,jk->ik" and a [2 3] operand. (A key
// of boundPlan starts with a 0 byte, which no length does.)
func cachedPlan(spec string, operands []*tensor.Dense) (*Plan, error) {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(len(spec)))
	sb.WriteByte(':')
	sb.WriteString(spec)
	for _, x := range operands {
		shapeKey(&sb, x.Shape())
	}
	key := sb.String()
	if p := cacheGet(key); p != nil {
		return p, nil
	}
	shapes := make([][]int, len(operands))
	for k, x := range operands {
		shapes[k] = x.Shape()
	}
	p, err := NewPlan(spec, shapes...)
	if err != nil {
		return nil, err
	}
	cachePut(key, p)
	return p, nil
}

// boundPlan returns the cached plan of a bound spec built by a rule (dims and out
// given directly as labels, sizes taken from b).
func boundPlan(spec string, sizes *[maxLabels]int, dims [][]int, shapes [][]int, out []int) *Plan {
	var sb strings.Builder
	sb.WriteString("\x00")
	for _, d := range dims {
		for _, l := range d {
			sb.WriteString(strconv.Itoa(l))
			sb.WriteByte(',')
		}
		sb.WriteByte(';')
	}
	sb.WriteString(">")
	for _, l := range out {
		sb.WriteString(strconv.Itoa(l))
		sb.WriteByte(',')
	}
	shapeKey(&sb, shapes...)
	key := sb.String()
	if p := cacheGet(key); p != nil {
		return p
	}
	b := &bound{dims: dims, shapes: shapes, out: out, size: *sizes}
	for _, d := range dims {
		b.used = b.used.or(setOf(d))
	}
	p := newPlan(spec, b, Auto)
	cachePut(key, p)
	return p
}
