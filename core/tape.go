package core

import (
	"slices"
	"sync/atomic"
	"unsafe"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// node flags
const (
	flagLeaf     uint8 = 1 << iota // a value that wants a gradient
	flagConst                      // a value that never gets one
	flagRequires                   // some leaf influences this node
	flagHook                       // hooks are registered on this node
	flagMulti                      // the last output of a multi-output op: it carries the group's rule
	flagSibling                    // an output of a multi-output op other than the last
)

// Names recorded for nodes that are not op applications.
const (
	LeafName     = "leaf"
	ConstantName = "constant"
)

var tapeTags atomic.Uint32

// Tape records values and the rules that differentiate them. The zero Tape is not
// usable; create one with NewTape.
type Tape[V any] struct {
	space  cr.Space[V]
	layout cr.LayoutSpace[V] // space's optional fast layout check, or nil
	reg    *cr.Registry[V]
	tag    uint32

	// Nodes live in chunks of chunkLen (the first grows to that size by doubling),
	// so that recording a large graph never copies it.
	chunks [][]node[V]
	n      int

	err   error
	freed bool

	// noGrad pauses gradient recording (see SetGradEnabled).
	noGrad bool
	// nleaves counts the leaves; Checkpoint uses it to reject functions that record
	// leaves of their own.
	nleaves int
	// hooks holds the hooks of the nodes flagged flagHook (see AddHook).
	hooks map[int][]hook[V]
	// isFinite is set while anomaly mode is on; sites[i] is then the program counter
	// of the call that recorded node i (0 when it was recorded with anomaly mode off).
	isFinite func(V) bool
	sites    []uintptr

	opNames   []string // interned op names (node.name indexes it)
	nameMap   map[string]uint16
	nameCache [4]nameCacheEntry
	nameNext  int

	ids  []cr.NodeID          // scratch for Apply
	need []bool               // scratch for Apply (MaskedOp)
	vals []V                  // scratch for Apply
	buf  []cr.Contribution[V] // scratch for pullbacks
}

const (
	chunkBits = 12
	chunkLen  = 1 << chunkBits
	// firstChunkLen is the initial length of the first chunk, which doubles up to
	// chunkLen; later chunks are allocated whole.
	firstChunkLen = 16
)

// node is one recorded value.
type node[V any] struct {
	value V
	rule  cr.ReverseRule[V] // nil for leaves and constants
	name  uint16            // index into Tape.opNames: a string per node would cost
	flags uint8             // the garbage collector a pointer per node to scan
	// grp is, for a flagSibling node, the distance to the last output of its op,
	// which carries the rule (it fits in the padding after flags).
	grp uint32
}

// maxOpNames bounds the distinct op names of one tape (node.name is a uint16).
const maxOpNames = 1 << 16

// intern returns the index of name in t.opNames, adding it if new. A small cache in
// front of the map makes the common case (a few op names, each a string constant,
// so equal strings share their data and compare in constant time) cost a few
// comparisons.
func (t *Tape[V]) intern(name string) (uint16, bool) {
	for _, c := range t.nameCache {
		// Op names are string constants: the same name has the same data.
		if c.ok && len(c.s) == len(name) && unsafe.StringData(c.s) == unsafe.StringData(name) {
			return c.i, true
		}
	}
	for _, c := range t.nameCache {
		if c.ok && c.s == name {
			return c.i, true
		}
	}
	i, ok := t.nameMap[name]
	if !ok {
		if len(t.opNames) >= maxOpNames {
			return 0, false
		}
		if t.nameMap == nil {
			t.nameMap = make(map[string]uint16)
		}
		i = uint16(len(t.opNames))
		t.opNames = append(t.opNames, name)
		t.nameMap[name] = i
	}
	t.nameCache[t.nameNext] = nameCacheEntry{s: name, i: i, ok: true}
	t.nameNext = (t.nameNext + 1) % len(t.nameCache)
	return i, true
}

type nameCacheEntry struct {
	s  string
	i  uint16
	ok bool
}

// nameOf returns the op name of node i.
func (t *Tape[V]) nameOf(i int) string { return t.opNames[t.at(i).name] }

// at returns the node with index i, which must be in range.
func (t *Tape[V]) at(i int) *node[V] { return &t.chunks[i>>chunkBits][i&(chunkLen-1)] }

// NewTape returns an empty tape for values of the given space.
func NewTape[V any](space cr.Space[V]) *Tape[V] {
	tag := tapeTags.Add(1)
	for tag == 0 {
		tag = tapeTags.Add(1)
	}
	t := &Tape[V]{space: space, tag: tag}
	t.layout, _ = space.(cr.LayoutSpace[V])
	return t
}

// UseRegistry makes Apply resolve ops through reg, so that the overrides installed
// with reg.SetOverride take effect on this tape. It returns t.
func (t *Tape[V]) UseRegistry(reg *cr.Registry[V]) *Tape[V] {
	t.reg = reg
	return t
}

// Space returns the space the tape was created with.
func (t *Tape[V]) Space() cr.Space[V] { return t.space }

// Len returns the number of recorded nodes.
func (t *Tape[V]) Len() int { return t.n }

// Err returns the first error met while recording, or ErrGraphFreed after Free.
func (t *Tape[V]) Err() error {
	if t.err == nil && t.freed {
		return cr.ErrGraphFreed
	}
	return t.err
}

func (t *Tape[V]) fail(err error) cr.NodeID {
	if t.err == nil {
		t.err = err
	}
	return 0
}

func (t *Tape[V]) push(v V, rule cr.ReverseRule[V], name string, flags uint8, pc uintptr) cr.NodeID {
	i := t.n
	if t.isFinite != nil {
		if err := t.checkValue(i, name, v, pc); err != nil {
			return t.fail(err)
		}
	}
	if i&(chunkLen-1) == 0 {
		if i>>chunkBits >= 1<<(32-chunkBits) {
			return t.fail(cr.Errorf(cr.ErrInvalidArgument, "a tape holds at most 2^32 nodes"))
		}
		n := chunkLen
		if i == 0 {
			n = firstChunkLen
		}
		t.chunks = append(t.chunks, make([]node[V], n))
	} else if i < chunkLen && i == len(t.chunks[0]) {
		// The first chunk grows by doubling, so that the small inner tapes of
		// composite ops and checkpoints stay small.
		c := make([]node[V], min(2*i, chunkLen))
		copy(c, t.chunks[0])
		t.chunks[0] = c
	}
	ni, ok := t.intern(name)
	if !ok {
		return t.fail(cr.Errorf(cr.ErrInvalidArgument, "a tape holds at most %d distinct op names", maxOpNames))
	}
	*t.at(i) = node[V]{value: v, rule: rule, name: ni, flags: flags}
	t.n++
	if t.isFinite != nil {
		t.setSite(i, pc)
	}
	return cr.NewNodeID(t.tag, i)
}

// Leaf records a value that wants a gradient. The tape keeps v without copying it;
// the caller must not modify v while the tape is in use. A leaf recorded while
// gradients are disabled (SetGradEnabled) is still a leaf.
func (t *Tape[V]) Leaf(v V) cr.NodeID {
	if t.Err() != nil {
		return 0
	}
	var pc uintptr
	if t.isFinite != nil {
		pc = callerPC()
	}
	t.nleaves++
	return t.push(v, nil, LeafName, flagLeaf|flagRequires, pc)
}

// Constant records a value that never gets a gradient: data, labels, fixed weights.
func (t *Tape[V]) Constant(v V) cr.NodeID {
	if t.Err() != nil {
		return 0
	}
	var pc uintptr
	if t.isFinite != nil {
		pc = callerPC()
	}
	return t.push(v, nil, ConstantName, flagConst, pc)
}

// index returns the recording index of id, or an error wrapping ErrMissingNode (or
// ErrGraphFreed).
func (t *Tape[V]) index(id cr.NodeID) (int, error) {
	if t.freed {
		return 0, cr.ErrGraphFreed
	}
	if id.Tape() != t.tag || id.Index() >= t.n {
		if !id.Valid() {
			return 0, cr.Errorf(cr.ErrMissingNode, "the zero NodeID (returned after a recording error?)")
		}
		return 0, cr.Errorf(cr.ErrMissingNode, "node %v is not on this tape", id)
	}
	return id.Index(), nil
}

// Value returns the value recorded at id.
func (t *Tape[V]) Value(id cr.NodeID) (V, error) {
	i, err := t.index(id)
	if err != nil {
		var zero V
		return zero, err
	}
	return t.at(i).value, nil
}

// OpName returns the name of the op recorded at id (LeafName or ConstantName for
// leaves and constants).
func (t *Tape[V]) OpName(id cr.NodeID) (string, error) {
	i, err := t.index(id)
	if err != nil {
		return "", err
	}
	return t.nameOf(i), nil
}

// Inputs returns the inputs of the op recorded at id (nil for leaves and constants).
// Every output of a multi-output op reports the op's inputs.
func (t *Tape[V]) Inputs(id cr.NodeID) ([]cr.NodeID, error) {
	i, err := t.index(id)
	if err != nil {
		return nil, err
	}
	if r := t.ruleOf(i); r != nil {
		return slices.Clone(r.Inputs()), nil
	}
	return nil, nil
}

// IsLeaf reports whether id was recorded with Leaf.
func (t *Tape[V]) IsLeaf(id cr.NodeID) bool {
	i, err := t.index(id)
	return err == nil && t.at(i).flags&flagLeaf != 0
}

// RequiresGrad reports whether some leaf influences the value at id.
func (t *Tape[V]) RequiresGrad(id cr.NodeID) bool {
	i, err := t.index(id)
	return err == nil && t.at(i).flags&flagRequires != 0
}

// Record appends the output of an op computed by the caller, with the rule that
// differentiates it, and returns its NodeID. Every NodeID that rule.Inputs() names
// must already be on this tape. It is the low-level form of Apply, for programs that
// compute values themselves; a nil rule is an error (record data with Constant).
// While gradients are disabled (SetGradEnabled) the rule is dropped after the check.
func (t *Tape[V]) Record(op string, value V, rule cr.ReverseRule[V]) cr.NodeID {
	if t.Err() != nil {
		return 0
	}
	var pc uintptr
	if t.isFinite != nil {
		pc = callerPC()
	}
	return t.record(op, value, rule, pc)
}

// record is Record with the recording site pc (0 unless anomaly mode is on). While
// gradients are disabled it keeps the value and drops the rule.
func (t *Tape[V]) record(op string, value V, rule cr.ReverseRule[V], pc uintptr) cr.NodeID {
	if rule == nil {
		return t.fail(&cr.OpError{Op: op, Phase: "apply", Err: cr.Errorf(cr.ErrNoRule, "nil rule")})
	}
	var flags uint8
	for _, in := range rule.Inputs() {
		j, err := t.index(in)
		if err != nil {
			return t.fail(&cr.OpError{Op: op, Phase: "apply", Err: err})
		}
		flags |= t.at(j).flags & flagRequires
	}
	if t.noGrad {
		return t.push(value, nil, op, flagConst, pc)
	}
	return t.push(value, rule, op, flags, pc)
}

// Apply computes op on the values at inputs, records the output with its rule (only
// the output while gradients are disabled, see SetGradEnabled) and returns its
// NodeID. After an error (now or earlier) it returns the zero NodeID and
// Err reports the first error.
func (t *Tape[V]) Apply(op cr.Op[V], inputs ...cr.NodeID) cr.NodeID {
	if t.Err() != nil {
		return 0
	}
	var pc uintptr
	if t.isFinite != nil {
		pc = callerPC()
	}
	return t.apply(op, pc, inputs)
}

// apply is Apply with the recording site pc (0 unless anomaly mode is on).
func (t *Tape[V]) apply(op cr.Op[V], pc uintptr, inputs []cr.NodeID) cr.NodeID {
	if t.reg != nil {
		op = t.reg.Resolve(op)
	}
	// Copying the inputs into scratch keeps the variadic slice on the caller's stack.
	ids, vals := append(t.ids[:0], inputs...), t.vals[:0]
	allNeed := !t.noGrad
	for _, in := range ids {
		j, err := t.index(in)
		if err != nil {
			clear(vals)
			return t.fail(&cr.OpError{Op: op.Name(), Phase: "apply", Err: err})
		}
		nd := t.at(j)
		vals = append(vals, nd.value)
		allNeed = allNeed && nd.flags&flagRequires != 0
	}
	var (
		y    V
		rule cr.ReverseRule[V]
		err  error
	)
	// With every input needing a cotangent, ApplyMasked is Apply by contract: the
	// type assertion is only paid when masking can save work.
	var mop cr.MaskedOp[V]
	if !allNeed {
		mop, _ = op.(cr.MaskedOp[V])
	}
	if mop != nil {
		need := t.need[:0]
		for _, in := range ids {
			need = append(need, !t.noGrad && t.at(in.Index()).flags&flagRequires != 0)
		}
		y, rule, err = mop.ApplyMasked(ids, vals, need)
		t.need = need[:0]
	} else {
		y, rule, err = op.Apply(ids, vals)
	}
	clear(vals) // do not keep values alive through the scratch buffer
	t.ids, t.vals = ids[:0], vals[:0]
	if err != nil {
		return t.fail(&cr.OpError{Op: op.Name(), Phase: "apply", Err: err})
	}
	return t.record(op.Name(), y, rule, pc)
}

// Free releases the recorded values and rules. Every later use of the tape returns an
// error wrapping ErrGraphFreed.
func (t *Tape[V]) Free() {
	t.chunks, t.n = nil, 0
	t.ids, t.vals, t.buf = nil, nil, nil
	t.hooks, t.sites = nil, nil
	t.freed = true
}

var _ cr.Recorder[float64] = (*Tape[float64])(nil)
