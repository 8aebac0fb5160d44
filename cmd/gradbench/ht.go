package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The ht eval (ADBench's hand tracking): a skinned hand mesh posed by 26
// parameters theta. The pose has a global rotation (angle-axis), a scale of 1
// and a translation, and per bone three Euler angles (x, z, y order), of which
// theta sets the first one or two of three joints per finger. Each bone's
// relative transform is its base transform times the rotation
// R_z R_y R_x; the absolute transforms follow the parent chain; each vertex is
// the weighted sum over bones of the bone's transform (times the inverse base
// absolute) applied to its base position; then the global rotation and
// translation apply. The errors are the data points minus the vertices they
// correspond to ("simple"), or minus the points u0 a + u1 b + (1 - u0 - u1) c
// of the corresponding triangles with per-point parameters u ("complicated").
//
// The Jacobian is 3·npts x (2 + 26) (or 26): forward mode suits it, so the
// function is recorded once and swept forward once per theta column; each
// point's errors depend on its own u only, so two more sweeps, with every
// point's u0 (then u1) seeded at once, give the two u columns of every row.
func init() {
	modules["ht"] = map[string]prepare{
		"objective": htJob(false),
		"jacobian":  htJob(true),
	}
}

type htInput struct {
	runs
	Theta []float64   `json:"theta"`
	Us    [][]float64 `json:"us"`
	Data  struct {
		Model struct {
			BoneCount            int           `json:"bone_count"`
			Parents              []int         `json:"parents"`
			BaseRelatives        [][][]float64 `json:"base_relatives"`
			InverseBaseAbsolutes [][][]float64 `json:"inverse_base_absolutes"`
			BasePositions        [][]float64   `json:"base_positions"`
			Weights              [][]float64   `json:"weights"`
			Triangles            [][]int       `json:"triangles"`
			IsMirrored           bool          `json:"is_mirrored"`
		} `json:"model"`
		Correspondences []int       `json:"correspondences"`
		Points          [][]float64 `json:"points"`
	} `json:"data"`
}

// htThetas is the number of pose parameters the model's pose layout reads.
const htThetas = 26

// htModel is the parsed problem; the model's tensors are constants.
type htModel struct {
	bones, verts, npts int
	parents            []int
	baseRel, invAbs    *tensor.Dense // bones x 4 x 4
	basePos            *tensor.Dense // verts x 4
	weights            *tensor.Dense // verts x bones
	points             *tensor.Dense // npts x 3
	mirror             bool
	corr               []int    // vertex of each point (simple)
	tri                [3][]int // triangle vertices of each point (complicated)
	complicated        bool
	poseIdx            []int // pose (bones+3) x 3 as indices into (theta, 0, 1)
	theta, us          *tensor.Dense
}

func (in *htInput) model() (*htModel, error) {
	md := &in.Data.Model
	nb := md.BoneCount
	if nb < 1 || len(md.Parents) != nb || len(md.BaseRelatives) != nb || len(md.InverseBaseAbsolutes) != nb {
		return nil, fmt.Errorf("bone_count = %d, with %d parents, %d base_relatives and %d inverse_base_absolutes", nb, len(md.Parents), len(md.BaseRelatives), len(md.InverseBaseAbsolutes))
	}
	if nb < 21 { // the pose layout fills bones up to 20 (pose row 23)
		return nil, fmt.Errorf("bone_count = %d: the pose layout needs at least 21 bones", nb)
	}
	if len(in.Theta) != htThetas {
		return nil, fmt.Errorf("theta has %d elements, want %d", len(in.Theta), htThetas)
	}
	for i, p := range md.Parents {
		if p < -1 || p >= i {
			return nil, fmt.Errorf("parents[%d] = %d: a parent must come before its child", i, p)
		}
	}
	m := &htModel{bones: nb, parents: md.Parents, mirror: md.IsMirrored}
	var err error
	mats := func(name string, v [][][]float64) (*tensor.Dense, error) {
		data := make([]float64, 0, 16*len(v))
		for i, a := range v {
			if len(a) != 4 {
				return nil, fmt.Errorf("%s[%d] has %d rows, want 4", name, i, len(a))
			}
			t, err := matrix(fmt.Sprintf("%s[%d]", name, i), a, 4)
			if err != nil {
				return nil, err
			}
			data = append(data, t.Float64s()...)
		}
		return tensor.FromFloat64(data, len(v), 4, 4)
	}
	if m.baseRel, err = mats("base_relatives", md.BaseRelatives); err != nil {
		return nil, err
	}
	if m.invAbs, err = mats("inverse_base_absolutes", md.InverseBaseAbsolutes); err != nil {
		return nil, err
	}
	m.verts = len(md.BasePositions)
	if m.basePos, err = matrix("base_positions", md.BasePositions, 4); err != nil {
		return nil, err
	}
	if len(md.Weights) != m.verts {
		return nil, fmt.Errorf("weights has %d rows, want one per vertex (%d)", len(md.Weights), m.verts)
	}
	if m.weights, err = matrix("weights", md.Weights, nb); err != nil {
		return nil, err
	}
	m.npts = len(in.Data.Points)
	if m.npts == 0 || len(in.Data.Correspondences) != m.npts {
		return nil, fmt.Errorf("%d points and %d correspondences, want as many, at least one", m.npts, len(in.Data.Correspondences))
	}
	if m.points, err = matrix("points", in.Data.Points, 3); err != nil {
		return nil, err
	}
	m.complicated = len(in.Us) > 0
	if m.complicated {
		if len(in.Us) != m.npts {
			return nil, fmt.Errorf("us has %d rows, want one per point (%d)", len(in.Us), m.npts)
		}
		if m.us, err = matrix("us", in.Us, 2); err != nil {
			return nil, err
		}
		for k := range m.tri {
			m.tri[k] = make([]int, m.npts)
		}
		for i, c := range in.Data.Correspondences {
			if c < 0 || c >= len(md.Triangles) || len(md.Triangles[c]) != 3 {
				return nil, fmt.Errorf("correspondences[%d] = %d is not a triangle of the model", i, c)
			}
			for k, v := range md.Triangles[c] {
				if v < 0 || v >= m.verts {
					return nil, fmt.Errorf("triangles[%d] has vertex %d, out of range", c, v)
				}
				m.tri[k][i] = v
			}
		}
	} else {
		for i, c := range in.Data.Correspondences {
			if c < 0 || c >= m.verts {
				return nil, fmt.Errorf("correspondences[%d] = %d is not a vertex of the model", i, c)
			}
		}
		m.corr = in.Data.Correspondences
	}
	m.theta = vector(in.Theta)

	// The pose: row 0 global rotation theta[0:3], row 1 the scale (ones), row 2
	// the translation theta[3:6], rows 3.. the bones' Euler angles, of which
	// theta fills the first angle of three joints per finger and the second of
	// the first joint, starting at bone 2 and skipping one bone per finger.
	zero, one := htThetas, htThetas+1
	m.poseIdx = make([]int, 3*(nb+3))
	for i := range m.poseIdx {
		m.poseIdx[i] = zero
	}
	for j := range 3 {
		m.poseIdx[j] = j
		m.poseIdx[3+j] = one
		m.poseIdx[6+j] = 3 + j
	}
	it, row := 6, 5
	for range 5 {
		for joint := range 3 {
			m.poseIdx[3*row] = it
			it++
			if joint == 0 {
				m.poseIdx[3*row+1] = it
				it++
			}
			row++
		}
		row++
	}
	return m, nil
}

// rotations3 records a batch of 3 x 3 matrices [b, 3, 3] from their nine
// entries (row-major), each a [b] vector.
func rotations3(t *core.Tape[*tensor.Dense], b int, e ...cr.NodeID) cr.NodeID {
	return t.Apply(permute.ReshapeOp(b, 3, 3), t.Apply(index.StackOp(1), e...))
}

// errors records the 3·npts errors of the model as a function of theta and,
// for the complicated variant, us.
func (m *htModel) errors(t *core.Tape[*tensor.Dense], theta, us cr.NodeID) cr.NodeID {
	nb := m.bones
	ap := func(op cr.Op[*tensor.Dense], in ...cr.NodeID) cr.NodeID { return t.Apply(op, in...) }
	mul := func(a, b cr.NodeID) cr.NodeID { return ap(elementwise.MulOp, a, b) }
	col := func(v cr.NodeID, j int) cr.NodeID { return ap(index.SelectOp(1, j), v) }

	ext := ap(index.ConcatOp(0), theta, t.Constant(vector([]float64{0, 1})))
	pose := ap(permute.ReshapeOp(nb+3, 3), ap(index.IndexSelectOp(0, m.poseIdx...), ext))

	// Bone rotations R_z R_y R_x from the angles (x, z, y) of pose rows 3...
	angles := ap(index.NarrowOp(0, 3, nb), pose)
	cosA, sinA := ap(elementwise.CosOp, angles), ap(elementwise.SinOp, angles)
	cx, sx := col(cosA, 0), col(sinA, 0)
	cz, sz := col(cosA, 1), col(sinA, 1)
	cy, sy := col(cosA, 2), col(sinA, 2)
	zeros := t.Constant(tensor.New(tensor.Float64, nb))
	ones := t.Constant(tensor.Ones(tensor.Float64, nb))
	neg := func(v cr.NodeID) cr.NodeID { return ap(elementwise.NegOp, v) }
	rx := rotations3(t, nb, ones, zeros, zeros, zeros, cx, neg(sx), zeros, sx, cx)
	ry := rotations3(t, nb, cy, zeros, sy, zeros, ones, zeros, neg(sy), zeros, cy)
	rz := rotations3(t, nb, cz, neg(sz), zeros, sz, cz, zeros, zeros, zeros, ones)
	r := ap(nn.MatmulOp, ap(nn.MatmulOp, rz, ry), rx)
	e33 := tensor.New(tensor.Float64, 4, 4)
	e33.SetFloat64(1, 3, 3)
	tr := ap(elementwise.AddOp, ap(index.PadOp([2]int{0, 0}, [2]int{0, 1}, [2]int{0, 1}), r), t.Constant(e33))
	relatives := ap(nn.MatmulOp, t.Constant(m.baseRel), tr)

	absolutes := make([]cr.NodeID, nb)
	for i, p := range m.parents {
		rel := ap(index.SelectOp(0, i), relatives)
		if p == -1 {
			absolutes[i] = rel
		} else {
			absolutes[i] = ap(nn.MatmulOp, absolutes[p], rel)
		}
	}
	transforms := ap(nn.MatmulOp, ap(index.StackOp(0), absolutes...), t.Constant(m.invAbs))
	transforms = ap(index.NarrowOp(1, 0, 3), transforms)

	// Skinning: positions[k, v] = sum_b w[v, b] sum_j T_b[k, j] base[v, j].
	pos := ap(einsum.Op("bkj,vj,vb->kv"), transforms, t.Constant(m.basePos), t.Constant(m.weights))
	if m.mirror {
		pos = mul(pos, t.Constant(vectorShape([]float64{-1, 1, 1}, 3, 1)))
	}

	// The global transform: angle-axis rotation (the identity below a norm of
	// 1e-4), columns scaled by pose row 1, then the translation pose row 2.
	aa := ap(index.SelectOp(0, 0), pose)
	norm := ap(elementwise.SqrtOp, ap(reduce.SumOp(nil, false), ap(elementwise.SquareOp, aa)))
	var rg cr.NodeID
	if v, err := t.Value(norm); err == nil && v.Float64s()[0] < 1e-4 {
		rg = t.Constant(eye3())
	} else {
		u := ap(elementwise.DivOp, aa, norm)
		s, c := ap(elementwise.SinOp, norm), ap(elementwise.CosOp, norm)
		omc := ap(elementwise.ShiftOp(1), neg(c))
		x, y, z := ap(index.SelectOp(0, 0), u), ap(index.SelectOp(0, 1), u), ap(index.SelectOp(0, 2), u)
		add := func(a, b cr.NodeID) cr.NodeID { return ap(elementwise.AddOp, a, b) }
		sub := func(a, b cr.NodeID) cr.NodeID { return ap(elementwise.SubOp, a, b) }
		diag := func(a cr.NodeID) cr.NodeID { // a² + (1 - a²) c
			a2 := mul(a, a)
			return add(a2, mul(ap(elementwise.ShiftOp(1), neg(a2)), c))
		}
		rg = ap(permute.ReshapeOp(3, 3), ap(index.StackOp(0),
			diag(x), sub(mul(mul(x, y), omc), mul(z, s)), add(mul(mul(x, z), omc), mul(y, s)),
			add(mul(mul(x, y), omc), mul(z, s)), diag(y), sub(mul(mul(y, z), omc), mul(x, s)),
			sub(mul(mul(x, z), omc), mul(y, s)), add(mul(mul(z, y), omc), mul(x, s)), diag(z)))
	}
	rg = mul(rg, ap(index.SelectOp(0, 1), pose))
	verts := ap(elementwise.AddOp, ap(nn.MatmulOp, rg, pos), ap(permute.ReshapeOp(3, 1), ap(index.SelectOp(0, 2), pose)))
	verts = ap(permute.TransposeOp(0, 1), verts) // verts x 3

	var hand cr.NodeID
	if !m.complicated {
		hand = ap(index.IndexSelectOp(0, m.corr...), verts)
	} else {
		a := ap(index.IndexSelectOp(0, m.tri[0]...), verts)
		b := ap(index.IndexSelectOp(0, m.tri[1]...), verts)
		c := ap(index.IndexSelectOp(0, m.tri[2]...), verts)
		u0, u1 := ap(index.NarrowOp(1, 0, 1), us), ap(index.NarrowOp(1, 1, 1), us)
		u2 := ap(elementwise.ShiftOp(1), neg(ap(elementwise.AddOp, u0, u1)))
		hand = ap(elementwise.AddOp, ap(elementwise.AddOp, mul(u0, a), mul(u1, b)), mul(u2, c))
	}
	err := ap(elementwise.SubOp, t.Constant(m.points), hand)
	return ap(permute.ReshapeOp(3*m.npts), err)
}

func vectorShape(data []float64, shape ...int) *tensor.Dense {
	v, _ := tensor.FromFloat64(data, shape...)
	return v
}

func eye3() *tensor.Dense {
	return vectorShape([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, 3, 3)
}

// record records the errors on a fresh tape with theta and us as leaves (or
// as constants of a tape without grad).
func (m *htModel) record(grad bool) (t *core.Tape[*tensor.Dense], theta, us, out cr.NodeID, err error) {
	t = core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(ops.Default())
	leaf := t.Leaf
	if !grad {
		t.SetGradEnabled(false)
		leaf = t.Constant
	}
	theta = leaf(m.theta)
	if m.complicated {
		us = leaf(m.us)
	}
	out = m.errors(t, theta, us)
	return t, theta, us, out, t.Err()
}

func (m *htModel) objective() (any, error) {
	t, _, _, out, err := m.record(false)
	if err != nil {
		return nil, err
	}
	v, err := t.Value(out)
	if err != nil {
		return nil, err
	}
	return flat(v), nil
}

// jacobian sweeps the recording forward once per column.
func (m *htModel) jacobian() (any, error) {
	t, theta, us, out, err := m.record(true)
	if err != nil {
		return nil, err
	}
	nrows := 3 * m.npts
	var columns [][]float64
	sweep := func(seeds map[cr.NodeID]*tensor.Dense) error {
		tg, err := t.ForwardTangents(seeds)
		if err != nil {
			return err
		}
		d, ok := tg.Of(out)
		if !ok {
			d = tensor.New(tensor.Float64, nrows)
		}
		columns = append(columns, d.Float64s())
		return nil
	}
	if m.complicated {
		for k := range 2 {
			seed := make([]float64, 2*m.npts)
			for i := range m.npts {
				seed[2*i+k] = 1
			}
			if err := sweep(map[cr.NodeID]*tensor.Dense{us: vectorShape(seed, m.npts, 2)}); err != nil {
				return nil, err
			}
		}
	}
	for c := range htThetas {
		e := make([]float64, htThetas)
		e[c] = 1
		if err := sweep(map[cr.NodeID]*tensor.Dense{theta: vector(e)}); err != nil {
			return nil, err
		}
	}
	jac := make([][]float64, nrows)
	for i := range jac {
		jac[i] = make([]float64, len(columns))
		for j, c := range columns {
			jac[i][j] = c[i]
		}
	}
	return jac, nil
}

func htJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in htInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		m, err := in.model()
		if err != nil {
			return job{}, err
		}
		if grad {
			return job{runs: in.runs, run: m.jacobian}, nil
		}
		return job{runs: in.runs, run: m.objective}, nil
	}
}
