package hvp_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/rpc"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gfloats "gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// logisticData returns n samples of d features (row-major) and the labels as
// negY_i = -y_i with y_i in {-1, +1}.
func logisticData(seed uint64, n, d int) (xs, negY []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs = make([]float64, n*d)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = 2 * rng.NormFloat64() / math.Sqrt(float64(d))
	}
	negY = make([]float64, n)
	for i := range n {
		negY[i] = 1
		if rng.Float64() < 1/(1+math.Exp(-gfloats.Dot(xs[i*d:(i+1)*d], w))) {
			negY[i] = -1
		}
	}
	return xs, negY
}

// logisticTerm is rows [lo, hi) of the regularised logistic loss
// 1/n sum_i softplus(-y_i x_i.w) + lambda/2 ||w||^2, with the penalty in the term
// that starts at row 0.
func logisticTerm(xs, negY []float64, n, d, lo, hi int, lambda float64) hvp.Func {
	X, err := tensor.FromFloat64(xs[lo*d:hi*d], hi-lo, d)
	if err != nil {
		panic(err)
	}
	NegY, err := tensor.FromFloat64(negY[lo:hi], hi-lo)
	if err != nil {
		panic(err)
	}
	return func(t *hvp.Tape, w []cr.NodeID) cr.NodeID {
		margins := t.Apply(ew.MulOp, t.Apply(einsum.Op("nd,d->n"), t.Constant(X), w[0]), t.Constant(NegY))
		loss := t.Apply(ew.ScaleOp(1/float64(n)), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SoftplusOp, margins)))
		if lo == 0 {
			penalty := t.Apply(ew.ScaleOp(lambda/2), t.Apply(einsum.Op("d,d->"), w[0], w[0]))
			loss = t.Apply(ew.AddOp, loss, penalty)
		}
		return loss
	}
}

// logisticShards splits the rows into k local shards.
func logisticShards(xs, negY []float64, n, d, k int, lambda float64) []hvp.Shard {
	l, _ := hvp.NewLayout([]int{d})
	shards := make([]hvp.Shard, k)
	for s := range k {
		shards[s] = hvp.NewShard(logisticTerm(xs, negY, n, d, s*n/k, (s+1)*n/k, lambda), l)
	}
	return shards
}

// Values, gradients and Hessian-vector products of a sharded objective are those of
// one shard up to the order of summation.
func TestShardedObjectiveMatchesOneShard(t *testing.T) {
	const n, d, lambda = 1000, 7, 1e-3
	xs, negY := logisticData(1, n, d)
	l, _ := hvp.NewLayout([]int{d})
	one := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, 1, lambda)...)
	rng := rand.New(rand.NewPCG(2, 2))
	x, v := make([]float64, d), make([]float64, d)
	for i := range x {
		x[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	g1, hv1 := make([]float64, d), make([]float64, d)
	f1 := one.Func(x)
	one.Grad(g1, x)
	require.NoError(t, one.HessVec(hv1, x, v))
	for _, k := range []int{2, 3, 8} {
		obj := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, k, lambda)...)
		assert.Equal(t, k, obj.Shards())
		g, hv := make([]float64, d), make([]float64, d)
		assert.InDelta(t, f1, obj.Func(x), 1e-15*math.Abs(f1)+1e-16, "k = %d", k)
		obj.Grad(g, x)
		require.NoError(t, obj.HessVec(hv, x, v))
		for i := range g {
			assert.InDelta(t, g1[i], g[i], 1e-14, "k = %d, gradient %d", k, i)
			assert.InDelta(t, hv1[i], hv[i], 1e-14, "k = %d, HVP %d", k, i)
		}
		assert.Equal(t, 1, obj.Recordings)
		assert.Equal(t, 1, obj.Gradients)
		assert.Equal(t, 1, obj.HVPs)
		require.NoError(t, obj.Err())
	}
	// The sum is in shard order: two runs agree to the last bit.
	a := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, 4, lambda)...)
	b := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, 4, lambda)...)
	ga, gb := make([]float64, d), make([]float64, d)
	a.Grad(ga, x)
	b.Grad(gb, x)
	assert.Equal(t, ga, gb)
}

// Newton-CG on a sharded logistic regression converges to the one-shard answer.
func TestShardedNewtonCG(t *testing.T) {
	const n, d, lambda = 2000, 5, 1e-2
	xs, negY := logisticData(3, n, d)
	l, _ := hvp.NewLayout([]int{d})
	var sol [][]float64
	for _, k := range []int{1, 4} {
		obj := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, k, lambda)...)
		res, err := hvp.Minimize(obj, make([]float64, d), &optimize.Settings{GradientThreshold: 1e-10}, &hvp.NewtonCG{})
		require.NoError(t, err)
		assert.Equal(t, optimize.GradientThreshold, res.Status)
		sol = append(sol, res.X)
	}
	for i := range d {
		assert.InDelta(t, sol[0][i], sol[1][i], 1e-9)
	}
}

// failingShard fails on its calls number fail and later.
type failingShard struct {
	hvp.Shard
	calls, fail int32
}

func (s *failingShard) Eval(x, grad []float64) (float64, error) {
	if atomic.AddInt32(&s.calls, 1) >= s.fail {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "the node is down")
	}
	return s.Shard.Eval(x, grad)
}

// A shard's error stops the optimisation with Failure and names the shard.
func TestShardErrorsReachTheCaller(t *testing.T) {
	const n, d = 300, 3
	xs, negY := logisticData(4, n, d)
	l, _ := hvp.NewLayout([]int{d})
	shards := logisticShards(xs, negY, n, d, 3, 0)
	shards[2] = &failingShard{Shard: shards[2], fail: 3}
	obj := hvp.NewShardedObjective(l, shards...)
	res, err := hvp.Minimize(obj, make([]float64, d), nil, &hvp.NewtonCG{})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.ErrorContains(t, err, "shard 2: ")
	assert.ErrorContains(t, err, "the node is down")
	assert.Equal(t, optimize.Failure, res.Status)

	for _, obj := range []*hvp.Objective{hvp.NewShardedObjective(l), hvp.NewShardedObjective(l, shards[0], nil)} {
		assert.True(t, math.IsNaN(obj.Func(make([]float64, d))))
		assert.ErrorIs(t, obj.Err(), cr.ErrInvalidArgument)
	}
}

// quadraticShard is the term c/2 ||x - a||^2, evaluated by hand: a Shard need not
// record anything.
type quadraticShard struct {
	c float64
	a []float64
}

func (q quadraticShard) Eval(x, grad []float64) (float64, error) {
	f := 0.0
	for i := range x {
		f += q.c / 2 * (x[i] - q.a[i]) * (x[i] - q.a[i])
		if grad != nil {
			grad[i] = q.c * (x[i] - q.a[i])
		}
	}
	return f, nil
}

func (q quadraticShard) HessVec(dst, _, v []float64) error {
	for i := range v {
		dst[i] = q.c * v[i]
	}
	return nil
}

// A sum of two shards: one recorded locally, sum(exp(x)), and one evaluated by other
// means — by hand here; over RPC or on a cluster in practice. The minimum of
// sum(exp(x) + (x - 1)^2 / 2) solves exp(x) + x = 1, x = 0.
func ExampleShard() {
	l, _ := hvp.NewLayout([]int{3})
	local := hvp.NewShard(func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.ExpOp, x[0]))
	}, l)
	remote := quadraticShard{c: 1, a: []float64{1, 1, 1}}
	obj := hvp.NewShardedObjective(l, local, remote)
	res, err := hvp.Minimize(obj, []float64{1, -1, 2}, &optimize.Settings{GradientThreshold: 1e-9}, &hvp.NewtonCG{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: |x|∞ < 1e-9: %v, f = %.6f\n", res.Status, gfloats.Norm(res.X, math.Inf(1)) < 1e-9, res.F)
	// Output:
	// GradientThreshold: |x|∞ < 1e-9: true, f = 4.500000
}

// ShardServer serves a local shard over net/rpc: what a worker process would run.
type ShardServer struct{ shard *hvp.LocalShard }

// EvalArgs and the replies are what travels.
type EvalArgs struct {
	X, V     []float64
	WantGrad bool
}

type EvalReply struct {
	F    float64
	Grad []float64
}

func (s *ShardServer) Eval(args EvalArgs, reply *EvalReply) error {
	if args.WantGrad {
		reply.Grad = make([]float64, len(args.X))
	}
	f, err := s.shard.Eval(args.X, reply.Grad)
	reply.F = f
	return err
}

func (s *ShardServer) HessVec(args EvalArgs, reply *[]float64) error {
	*reply = make([]float64, len(args.X))
	return s.shard.HessVec(*reply, args.X, args.V)
}

// rpcShard is a Shard evaluated by a ShardServer at the other end of client.
type rpcShard struct{ client *rpc.Client }

func (r rpcShard) Eval(x, grad []float64) (float64, error) {
	var reply EvalReply
	if err := r.client.Call("ShardServer.Eval", EvalArgs{X: x, WantGrad: grad != nil}, &reply); err != nil {
		return 0, err
	}
	copy(grad, reply.Grad)
	return reply.F, nil
}

func (r rpcShard) HessVec(dst, x, v []float64) error {
	var reply []float64
	if err := r.client.Call("ShardServer.HessVec", EvalArgs{X: x, V: v}, &reply); err != nil {
		return err
	}
	if len(reply) != len(dst) {
		return errors.New("rpcShard: a reply of the wrong length")
	}
	copy(dst, reply)
	return nil
}

// Shards behind net/rpc (over in-process pipes here, over TCP between machines in
// practice) give the local answer.
func TestShardsOverRPC(t *testing.T) {
	const n, d, lambda = 600, 4, 1e-2
	xs, negY := logisticData(5, n, d)
	l, _ := hvp.NewLayout([]int{d})
	local := logisticShards(xs, negY, n, d, 3, lambda)
	remote := make([]hvp.Shard, len(local))
	for s, sh := range local {
		server := rpc.NewServer()
		require.NoError(t, server.Register(&ShardServer{shard: sh.(*hvp.LocalShard)}))
		c1, c2 := net.Pipe()
		go server.ServeConn(c1)
		client := rpc.NewClient(c2)
		t.Cleanup(func() { client.Close() })
		remote[s] = rpcShard{client: client}
	}
	want, err := hvp.Minimize(hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, 3, lambda)...), make([]float64, d), nil, &hvp.NewtonCG{})
	require.NoError(t, err)
	got, err := hvp.Minimize(hvp.NewShardedObjective(l, remote...), make([]float64, d), nil, &hvp.NewtonCG{})
	require.NoError(t, err)
	assert.Equal(t, want.X, got.X, "the same sums in the same order")
	assert.Equal(t, want.Stats.MajorIterations, got.Stats.MajorIterations)
}

// panickyShard is a quadraticShard whose HessVec indexes out of range, as user code
// may.
type panickyShard struct{ quadraticShard }

func (s panickyShard) HessVec(dst, x, v []float64) error {
	_ = s.a[len(s.a)+len(v)-len(x)] // index out of range
	return s.quadraticShard.HessVec(dst, x, v)
}

// A shard that panics runs on a goroutine the caller cannot recover (its own when the
// objective has several shards, gonum's under Minimize); the objective returns the
// panic as that shard's error, a *PanicError that names it and wraps
// ErrInvalidArgument and the runtime error, on every goroutine alike.
func TestShardPanicsAreErrors(t *testing.T) {
	l, _ := hvp.NewLayout([]int{2})
	rows := []float64{1, 2}
	outOfRange := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		i := len(rows) // a bug: one row too far
		return t.Apply(ew.ScaleOp(rows[i]), sumOf(ew.SquareOp)(t, x))
	}
	good := func() hvp.Shard { return hvp.NewShard(sumOf(ew.SquareOp), l) }
	quad := quadraticShard{c: 1, a: []float64{1, 2}}
	cases := []struct {
		name    string
		shards  []hvp.Shard
		shard   int  // the shard that panics
		hessVec bool // in HessVec, not in Eval
	}{
		{"one local shard", []hvp.Shard{hvp.NewShard(outOfRange, l)}, 0, false},
		{"local shard 1 of 3", []hvp.Shard{good(), hvp.NewShard(outOfRange, l), good()}, 1, false},
		{"local shard 0 of 2, on the caller's goroutine", []hvp.Shard{hvp.NewShard(outOfRange, l), good()}, 0, false},
		{"HessVec of shard 2 of 3", []hvp.Shard{good(), quad, panickyShard{quad}}, 2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := func(t *testing.T, err error) {
				t.Helper()
				var pe *hvp.PanicError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, c.shard, pe.Shard)
				assert.Equal(t, fmt.Sprintf("shard %d", c.shard), pe.Where)
				assert.NotEmpty(t, pe.Stack)
				assert.ErrorIs(t, err, cr.ErrInvalidArgument)
				var re runtime.Error
				require.ErrorAs(t, err, &re)
				assert.ErrorContains(t, err, fmt.Sprintf("hvp: shard %d panicked: runtime error: index out of range [2] with length 2", c.shard))
			}

			obj := hvp.NewShardedObjective(l, c.shards...)
			x := []float64{0.5, -1}
			if c.hessVec {
				err := obj.HessVec(make([]float64, 2), x, []float64{1, 0})
				check(t, err)
			} else {
				assert.True(t, math.IsNaN(obj.Func(x)))
			}
			check(t, obj.Err())

			// Under Minimize every evaluation runs on gonum's goroutines.
			obj.ClearErr()
			res, err := hvp.Minimize(obj, x, nil, &hvp.NewtonCG{})
			check(t, err)
			assert.Equal(t, optimize.Failure, res.Status)
			assert.Equal(t, x, res.X)
		})
	}
}
