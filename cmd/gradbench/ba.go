package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The ba eval (ADBench's bundle adjustment): n cameras of 11 parameters
// (Rodrigues rotation r, centre c, focal length f, principal point x0, radial
// distortion k1, k2), m points and p observations, observation j of camera
// j mod n and point j mod m with weight w_j and feature feat. Each
// observation's reprojection error is
//
//	Y = R(r) (X - c),  u = (Y_0, Y_1) / Y_2,  u = u (1 + k1 |u|² + k2 |u|⁴) f + x0,
//	err_j = w_j (u - feat),
//
// with R(r) Y = Y cos θ + (ω × Y) sin θ + ω (ω·Y)(1 - cos θ), θ = |r|, ω = r/θ
// (Y + r × Y where θ = 0), and the weight error is 1 - w_j². Every
// observation is computed (the eval's duplication is not exploited); the
// output keeps what GradBench compares: the first observation's errors, the
// first 30 and the last entries of the sparse Jacobian in CSR form.
//
// The Jacobian: observation j's errors depend on its camera, point and weight
// only, so with those gathered per observation (the leaves, p x 11, p x 3 and
// p) the pullbacks of the seeds (1, 0) and (0, 1) on every row of the p x 2
// errors give both rows of every observation's 2 x 15 block at once; one more
// pullback of the weight errors gives their derivatives. Three reverse sweeps
// of one recording.
func init() {
	modules["ba"] = map[string]prepare{
		"objective": baJob(false),
		"jacobian":  baJob(true),
	}
}

const baCamParams = 11

type baInput struct {
	runs
	N    int       `json:"n"`
	M    int       `json:"m"`
	P    int       `json:"p"`
	Cam  []float64 `json:"cam"`
	X    []float64 `json:"x"`
	W    float64   `json:"w"`
	Feat []float64 `json:"feat"`
}

// baProblem is the expanded problem: every camera, point, weight and feature.
type baProblem struct {
	n, m, p   int
	cams, pts *tensor.Dense // n x 11, m x 3
	w, feats  *tensor.Dense // p, p x 2
	camIdx    []int         // camera of each observation
	ptIdx     []int         // point of each observation
}

func (in *baInput) problem() (*baProblem, error) {
	if in.N < 1 || in.M < 1 || in.P < 1 {
		return nil, fmt.Errorf("n = %d, m = %d, p = %d: each must be at least 1", in.N, in.M, in.P)
	}
	if len(in.Cam) != baCamParams || len(in.X) != 3 || len(in.Feat) != 2 {
		return nil, fmt.Errorf("cam, x and feat have %d, %d and %d elements, want 11, 3 and 2", len(in.Cam), len(in.X), len(in.Feat))
	}
	pr := &baProblem{n: in.N, m: in.M, p: in.P, camIdx: make([]int, in.P), ptIdx: make([]int, in.P)}
	cams := make([]float64, 0, in.N*baCamParams)
	for range in.N {
		cams = append(cams, in.Cam...)
	}
	pts := make([]float64, 0, in.M*3)
	for range in.M {
		pts = append(pts, in.X...)
	}
	w := make([]float64, in.P)
	feats := make([]float64, 0, 2*in.P)
	for j := range in.P {
		w[j] = in.W
		feats = append(feats, in.Feat...)
		pr.camIdx[j], pr.ptIdx[j] = j%in.N, j%in.M
	}
	pr.cams, _ = tensor.FromFloat64(cams, in.N, baCamParams)
	pr.pts, _ = tensor.FromFloat64(pts, in.M, 3)
	pr.w, _ = tensor.FromFloat64(w, in.P)
	pr.feats, _ = tensor.FromFloat64(feats, in.P, 2)
	return pr, nil
}

// reprojErrors records the p x 2 reprojection errors of the observations with
// cameras cam (p x 11), points x (p x 3) and weights w (p).
func reprojErrors(t *core.Tape[*tensor.Dense], cam, x, w cr.NodeID, feats *tensor.Dense) cr.NodeID {
	p := feats.Shape()[0]
	cols := func(v cr.NodeID, start, n int) cr.NodeID { return t.Apply(index.NarrowOp(1, start, n), v) }
	mul := func(a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.MulOp, a, b) }
	add := func(a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.AddOp, a, b) }
	rowSum := func(v cr.NodeID) cr.NodeID { return t.Apply(reduce.SumOp([]int{1}, true), v) }

	rot := cols(cam, 0, 3)
	y := t.Apply(elementwise.SubOp, x, cols(cam, 3, 3))
	sqTheta := rowSum(t.Apply(elementwise.SquareOp, rot))

	// Rows with θ = 0 take the first-order formula; elsewhere θ is shifted by
	// nothing. The shift keeps the unused branch finite where θ = 0.
	var zero []bool
	if v, err := t.Value(sqTheta); err == nil {
		for j, s := range v.Float64s() {
			if s == 0 {
				if zero == nil {
					zero = make([]bool, p)
				}
				zero[j] = true
			}
		}
	}
	if zero != nil {
		shift := make([]float64, p)
		for j, z := range zero {
			if z {
				shift[j] = 1
			}
		}
		sh, _ := tensor.FromFloat64(shift, p, 1)
		sqTheta = add(sqTheta, t.Constant(sh))
	}
	theta := t.Apply(elementwise.SqrtOp, sqTheta)
	cos := t.Apply(elementwise.CosOp, theta)
	omega := t.Apply(elementwise.DivOp, rot, theta)
	cross := t.Apply(linalg.CrossOp(1), omega, y)
	dot := rowSum(mul(omega, y))
	oneMinusCos := t.Apply(elementwise.ShiftOp(1), t.Apply(elementwise.NegOp, cos))
	ycam := add(add(mul(y, cos), mul(cross, t.Apply(elementwise.SinOp, theta))), mul(omega, mul(dot, oneMinusCos)))
	if zero != nil {
		small := add(y, t.Apply(linalg.CrossOp(1), rot, y))
		ycam = t.Apply(index.WhereOp(zero, p, 1), small, ycam)
	}

	u := t.Apply(elementwise.DivOp, cols(ycam, 0, 2), cols(ycam, 2, 1))
	rsq := rowSum(t.Apply(elementwise.SquareOp, u))
	l := add(mul(cols(cam, 9, 1), rsq), mul(cols(cam, 10, 1), t.Apply(elementwise.SquareOp, rsq)))
	u = mul(u, t.Apply(elementwise.ShiftOp(1), l))
	u = add(mul(u, cols(cam, 6, 1)), cols(cam, 7, 2))
	return mul(t.Apply(permute.UnsqueezeOp(1), w), t.Apply(elementwise.SubOp, u, t.Constant(feats)))
}

// weightErrors records 1 - w².
func weightErrors(t *core.Tape[*tensor.Dense], w cr.NodeID) cr.NodeID {
	return t.Apply(elementwise.ShiftOp(1), t.Apply(elementwise.NegOp, t.Apply(elementwise.SquareOp, w)))
}

// record records the errors of the problem on a fresh tape, with the cameras
// and points gathered per observation as leaves (as constants of a tape that
// records values only, without grad).
func (pr *baProblem) record(grad bool) (t *core.Tape[*tensor.Dense], leaves [3]cr.NodeID, reproj, werr cr.NodeID, err error) {
	camObs, err := index.IndexSelect(pr.cams, 0, pr.camIdx...)
	if err != nil {
		return nil, leaves, 0, 0, err
	}
	ptObs, err := index.IndexSelect(pr.pts, 0, pr.ptIdx...)
	if err != nil {
		return nil, leaves, 0, 0, err
	}
	t = core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(ops.Default())
	if grad {
		leaves = [3]cr.NodeID{t.Leaf(camObs), t.Leaf(ptObs), t.Leaf(pr.w)}
	} else {
		t.SetGradEnabled(false)
		leaves = [3]cr.NodeID{t.Constant(camObs), t.Constant(ptObs), t.Constant(pr.w)}
	}
	reproj = reprojErrors(t, leaves[0], leaves[1], leaves[2], pr.feats)
	werr = weightErrors(t, leaves[2])
	return t, leaves, reproj, werr, t.Err()
}

// objective returns the errors in GradBench's abridged form.
func (pr *baProblem) objective() (any, error) {
	t, _, reproj, werr, err := pr.record(false)
	if err != nil {
		return nil, err
	}
	r, err := t.Value(reproj)
	if err != nil {
		return nil, err
	}
	we, err := t.Value(werr)
	if err != nil {
		return nil, err
	}
	rs, ws := r.Float64s(), we.Float64s()
	return map[string]any{
		"reproj_error": map[string]any{"elements": []float64{rs[0], rs[1]}, "repeated": pr.p},
		"w_err":        map[string]any{"element": ws[0], "repeated": pr.p},
	}, nil
}

// baJacobian is the sparse Jacobian of the 2p reprojection and p weight
// errors in CSR form, laid out as ADBench's: for each observation two rows of
// 11 camera, 3 point and 1 weight entries, then one row per weight.
type baJacobian struct {
	rows, cols []int
	vals       []float64
}

// jacobian computes the Jacobian with three reverse sweeps and returns it in
// GradBench's abridged form.
func (pr *baProblem) jacobian() (any, error) {
	t, leaves, reproj, werr, err := pr.record(true)
	if err != nil {
		return nil, err
	}
	var blocks [2][3][]float64 // [error row][cam, point, weight]
	for r := range 2 {
		seed := make([]float64, 2*pr.p)
		for j := range pr.p {
			seed[2*j+r] = 1
		}
		sd, _ := tensor.FromFloat64(seed, pr.p, 2)
		g, err := t.BackwardSeed(reproj, sd)
		if err != nil {
			return nil, err
		}
		for k, id := range leaves {
			v, ok := g.Of(id)
			if !ok {
				return nil, fmt.Errorf("ba: no cotangent for input %d", k)
			}
			blocks[r][k] = v.Float64s()
		}
	}
	g, err := t.BackwardSeed(werr, tensor.Ones(tensor.Float64, pr.p))
	if err != nil {
		return nil, err
	}
	wv, ok := g.Of(leaves[2])
	if !ok {
		return nil, fmt.Errorf("ba: no cotangent for the weights")
	}
	wd := wv.Float64s()

	n, m, p := pr.n, pr.m, pr.p
	const block = baCamParams + 3 + 1
	jac := baJacobian{
		rows: make([]int, 0, 3*p+1),
		cols: make([]int, 0, 2*block*p+p),
		vals: make([]float64, 0, 2*block*p+p),
	}
	jac.rows = append(jac.rows, 0)
	for j := range p {
		for r := range 2 {
			jac.rows = append(jac.rows, jac.rows[len(jac.rows)-1]+block)
			for i := range baCamParams {
				jac.cols = append(jac.cols, baCamParams*pr.camIdx[j]+i)
				jac.vals = append(jac.vals, blocks[r][0][baCamParams*j+i])
			}
			for i := range 3 {
				jac.cols = append(jac.cols, baCamParams*n+3*pr.ptIdx[j]+i)
				jac.vals = append(jac.vals, blocks[r][1][3*j+i])
			}
			jac.cols = append(jac.cols, baCamParams*n+3*m+j)
			jac.vals = append(jac.vals, blocks[r][2][j])
		}
	}
	for j := range p {
		jac.rows = append(jac.rows, jac.rows[len(jac.rows)-1]+1)
		jac.cols = append(jac.cols, baCamParams*n+3*m+j)
		jac.vals = append(jac.vals, wd[j])
	}
	return map[string]any{
		"rows": abridge(jac.rows),
		"cols": abridge(jac.cols),
		"vals": abridge(jac.vals),
	}, nil
}

// abridge keeps the first 30 elements and the last, as GradBench compares.
func abridge[T any](v []T) []T {
	head := v[:min(len(v)-1, 30)]
	return append(append([]T(nil), head...), v[len(v)-1])
}

func baJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in baInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		pr, err := in.problem()
		if err != nil {
			return job{}, err
		}
		if grad {
			return job{runs: in.runs, run: pr.jacobian}, nil
		}
		return job{runs: in.runs, run: pr.objective}, nil
	}
}
