package core

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/race"
)

// node flags
const (
	flagLeaf     uint8 = 1 << iota // a value that wants a gradient
	flagConst                      // a value that never gets one
	flagRequires                   // some leaf influences this node
	flagHook                       // hooks are registered on this node
	flagSibling                    // an output of a multi-output op other than the last (which carries the rule)
	flagEscaped                    // its value was handed out (Value) on a recycling tape
)

// Names recorded for nodes that are not op applications.
const (
	LeafName     = "leaf"
	ConstantName = "constant"
)

var tapeTags atomic.Uint32

// Tape records values and the rules that differentiate them. The zero Tape is not
// usable; create one with NewTape.
//
// A Tape is not safe for concurrent use. Calls that record or sweep (Leaf,
// Constant, Record, Apply, ApplyMulti, Checkpoint, the Backward and Forward sweeps,
// a LinearMap's Apply, hook registration, Free) mark the tape busy; one that finds it
// busy — a second goroutine, or an op or a hook that re-enters the tape — fails with
// an error wrapping chainrules.ErrInvalidArgument, which also becomes the tape's
// sticky error, instead of corrupting the graph; a recording call (Leaf, Constant,
// Record, Apply, ApplyMulti, Checkpoint) that it overlapped then returns zero
// NodeIDs too. Value, OpName, Inputs and Len only read, and may run concurrently
// with each other.
//
// Values that enter the engine — leaves, constants, op outputs, seeds, pullback
// contributions, tangents, hook results — must not be nil (for a pointer, map,
// channel, func or interface V): a nil one is an error wrapping
// chainrules.ErrInvalidArgument where it enters, never a nil dereference later.
type Tape[V any] struct {
	space  cr.Space[V]
	layout cr.LayoutSpace[V] // space's optional fast layout check, or nil
	rows   cr.RowSpace[V]    // space's optional row-sparse cotangents, or nil
	// overlap is space's optional storage test, or nil: with it a sweep keeps
	// the cotangents that rules made for it as its own (see exclusive).
	overlap cr.OverlapSpace[V]
	// sumSpace says that space is a chainrules.SumSpace: first-order sweeps then
	// trade cotangent sums with the rules (chainrules.SumPullbackRule, sums.go).
	sumSpace bool
	reg      *cr.Registry[V]
	tag      uint32

	// Nodes live in chunks of chunkLen (the first grows to that size by doubling),
	// so that recording a large graph never copies it.
	chunks [][]node[V]
	n      int

	err   error
	freed bool

	// noGrad pauses gradient recording (see SetGradEnabled).
	noGrad bool
	// level is the level of the nodes being recorded (see node.level): above 0
	// while a recorded backward sweep records a pullback.
	level uint8
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
	nameCache [8]nameCacheEntry

	// The slices Apply passes to ops come from arenas that never hand out the same
	// storage twice, so an op that keeps them (against the Op contract) cannot
	// change another node's inputs.
	ids  arena[cr.NodeID]
	need arena[bool]
	vals arena[V]
	// ys holds the outputs an op's Apply writes, reused from op to op (an op must
	// not retain the slice; its values move into the nodes).
	ys   []V
	buf  []cr.Contribution[V] // scratch for pullbacks
	sbuf []cr.CotangentSum    // scratch for the sums of SumPullbackRule
	// one and hasOne are the one-slot cotangent slices a sweep hands the rules
	// of single-output ops, and sums0 sbuf's first storage: in the tape, so
	// that a sweep of a small graph does not allocate them.
	one    [1]V
	hasOne [1]bool
	sums0  [4]cr.CotangentSum

	// detached lists, in recording order, the inputs of the op nodes recorded while
	// gradients were disabled (their rules are dropped), for WriteDOT.
	detached []detachedNode

	// oneLayout says that every value has the same layout (a scalar space), so
	// that the sweeps' layout checks cost nothing.
	oneLayout bool

	// nilk says how a V can be nil (see nilKind), so that nil values are errors
	// where they enter the engine rather than nil dereferences in a later sweep.
	nilk uint8

	// busy is 1 while a recording or a sweep runs; a call that finds it set fails
	// (see enter), and sets misuse, which makes the misuse the tape's error.
	busy   uint32
	misuse atomic.Bool

	// recycling is set by EnableRecycling: Value then marks the nodes it hands
	// out, and first-order sweeps keep the cotangents they drop in dead, and in
	// kept those that rules without chainrules.FreshStorage returned, for Release.
	recycling  bool
	recycler   cr.Recycler[V] // the Space, when recycling
	dead, kept []V
}

// arena hands out slices of fresh storage, carved from chunks so that an Apply
// costs no allocation: a slice is never handed out twice, and a chunk lives as long
// as some slice of it is reachable.
type arena[T any] struct {
	buf []T
	off int // buf[off:] is free (an index, so that take writes no pointer)
}

const arenaChunk = 512

// take returns a zeroed slice of length and capacity n that shares no storage with
// any slice take returned before.
func (a *arena[T]) take(n int) []T {
	if len(a.buf)-a.off < n {
		a.buf, a.off = make([]T, max(n, arenaChunk)), 0
	}
	s := a.buf[a.off : a.off+n : a.off+n]
	a.off += n
	return s
}

// detachedNode is an op node recorded without its rule, with its inputs.
type detachedNode struct {
	i  int
	in []cr.NodeID
}

// detach notes the inputs of node i, recorded without its rule.
func (t *Tape[V]) detach(i int, in []cr.NodeID) {
	d := t.ids.take(len(in))
	copy(d, in)
	t.detached = append(t.detached, detachedNode{i: i, in: d})
}

// Ways a V can be nil.
const (
	notNil   uint8 = iota // V is not a pointer-like kind: no nil values
	nilPtr                // a pointer, map, channel or func: nil is a nil word
	nilIface              // an interface
)

// nilKind returns how a value of type V can be nil.
func nilKind[V any]() uint8 {
	switch reflect.TypeFor[V]().Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return nilPtr
	case reflect.Interface:
		return nilIface
	}
	return notNil
}

// isNil reports whether v is a nil pointer (or map, channel, func or interface).
func (t *Tape[V]) isNil(v V) bool {
	switch t.nilk {
	case notNil:
		return false
	case nilPtr:
		// A pointer-like V is one machine word.
		return *(*unsafe.Pointer)(unsafe.Pointer(&v)) == nil
	}
	return any(v) == nil
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
	rule  cr.Rule[V] // at the last output of an op; nil for leaves, constants and siblings
	name  uint16     // index into Tape.opNames: a string per node would cost
	flags uint8      // the garbage collector a pointer per node to scan
	// level is how many recorded backward sweeps (GradGraph) lie between the
	// program and this node: 0 for what the program recorded, 1 for the ops of a
	// recorded pullback, and so on. It names the order of derivative in errors.
	level uint8
	// grp is, for a flagSibling node, the distance to the last output of its op,
	// which carries the rule, and for that last output the number of outputs less
	// one (0 for a single-output op). It fits in the padding after flags.
	grp uint32
}

// maxOpNames bounds the distinct op names of one tape (node.name is a uint16).
const maxOpNames = 1 << 16

// intern returns the index of name in t.opNames, adding it if new. A small cache in
// front of the map makes the common case (a few op names, each a string constant,
// so equal strings share their data and compare in constant time) cost one
// comparison: a name is cached in the slot its data address picks.
func (t *Tape[V]) intern(name string) (uint16, bool) {
	p := unsafe.StringData(name)
	slot := &t.nameCache[(uintptr(unsafe.Pointer(p))>>3^uintptr(len(name)))%uintptr(len(t.nameCache))]
	// Op names are string constants: the same name has the same data.
	if slot.ok && len(slot.s) == len(name) && unsafe.StringData(slot.s) == p {
		return slot.i, true
	}
	return t.internSlow(name, slot)
}

// internSlow is intern past its cache slot: the map, which it fills, and slot,
// which it makes name's.
func (t *Tape[V]) internSlow(name string, slot *nameCacheEntry) (uint16, bool) {
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
	*slot = nameCacheEntry{s: name, i: i, ok: true}
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
	t := &Tape[V]{space: space, tag: tag, nilk: nilKind[V]()}
	t.layout, _ = space.(cr.LayoutSpace[V])
	_, t.oneLayout = any(space).(cr.Float64Space)
	t.rows, _ = space.(cr.RowSpace[V])
	t.overlap, _ = space.(cr.OverlapSpace[V])
	_, t.sumSpace = space.(cr.SumSpace[V])
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
	if t.err != nil {
		return t.err
	}
	if t.misuse.Load() {
		return errConcurrentUse
	}
	if t.freed {
		return cr.ErrGraphFreed
	}
	return nil
}

// errConcurrentUse is the error of a call that found the tape busy.
var errConcurrentUse = cr.Errorf(cr.ErrInvalidArgument,
	"concurrent use of a tape: a call overlapped another one (a Tape is not safe for concurrent use; "+
		"use a tape per goroutine, and do not re-enter the tape from an op or a hook)")

// enter marks the tape busy for one recording or sweep and reports whether it was
// free. A call that finds the tape busy — another goroutine is using it, or an op or
// a hook re-entered it — must return errConcurrentUse at once without touching the
// tape: it only sets the atomic misuse flag. The call that holds the tape turns the
// flag into the tape's sticky error when it leaves, so that t.err is only ever
// written by the holder of busy, and a call that recorded a node while the flag was
// set returns the zero NodeID (see misused).
//
// Of two calls that overlap, the compare-and-swap lets exactly one through, and
// leave clears the flag with a release store, so that the calls the guard lets
// through one at a time are ordered even when the caller did not order them (the
// misuse it reports): the holder's writes, t.err's included, happen before the
// next holder's. On amd64 and 386 a plain store is a release store (the processor
// keeps stores in order, and the compiler does not move them past one another),
// and costs nothing next to the locked instruction an atomic store is there (one
// per recorded node, on the engine's hottest path), so leave uses it, except under
// the race detector, which only sees the ordering of atomic operations (see
// plainLeave). Elsewhere (arm64, ...) the atomic store is a store-release
// instruction.
func (t *Tape[V]) enter() bool {
	if atomic.CompareAndSwapUint32(&t.busy, 0, 1) {
		return true
	}
	t.misuse.Store(true)
	return false
}

// leave ends what enter began; only the caller that holds busy calls it.
func (t *Tape[V]) leave() {
	if t.misuse.Load() && t.err == nil {
		t.err = errConcurrentUse
	}
	if plainLeave {
		t.busy = 0
	} else {
		atomic.StoreUint32(&t.busy, 0)
	}
}

// plainLeave says that leave may clear busy with a plain store (see enter): on
// processors whose plain stores are release stores, without the race detector.
const plainLeave = !race.Enabled && (runtime.GOARCH == "amd64" || runtime.GOARCH == "386")

// misused reports whether a call that overlapped the one in progress has been
// detected (see enter): an op, a rule or a composite body that re-entered the tape,
// or another goroutine. A recording call in progress then fails too, with zero
// NodeIDs, even if it recorded its node: the tape's error is set when it leaves.
func (t *Tape[V]) misused() bool { return t.misuse.Load() }

func (t *Tape[V]) fail(err error) cr.NodeID {
	if t.err == nil {
		t.err = err
	}
	return 0
}

func (t *Tape[V]) push(v V, rule cr.Rule[V], name string, flags uint8, pc uintptr) cr.NodeID {
	i := t.n
	if t.isNil(v) {
		return t.fail(t.applyErr(name, i, cr.Errorf(cr.ErrInvalidArgument, "nil value")))
	}
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
	// The slot is fresh (zero), so setting the fields one by one is the same as
	// storing a node literal, without the bulk write barrier of a struct copy.
	nd := t.at(i)
	nd.value, nd.rule, nd.name, nd.flags, nd.level = v, rule, ni, flags, t.level
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
	return t.source(v, LeafName, flagLeaf|flagRequires)
}

// Constant records a value that never gets a gradient: data, labels, fixed weights.
func (t *Tape[V]) Constant(v V) cr.NodeID {
	return t.source(v, ConstantName, flagConst)
}

// source records a node without inputs: a leaf or a constant.
func (t *Tape[V]) source(v V, name string, flags uint8) cr.NodeID {
	if !t.enter() {
		return 0
	}
	defer t.leave()
	if t.Err() != nil {
		return 0
	}
	if flags&flagLeaf != 0 {
		t.nleaves++
	}
	if id := t.push(v, nil, name, flags, t.recordingSite()); !t.misused() {
		return id
	}
	return 0
}

// recordingSite returns the recording site of the call in progress for anomaly reports: the
// first caller outside this module. With anomaly mode off it is 0, and costs no
// stack walk.
func (t *Tape[V]) recordingSite() uintptr {
	if t.isFinite == nil {
		return 0
	}
	return callerPC()
}

// lookup returns the recording index of id and whether id is a node of t, in few
// enough instructions to be inlined on the recording path (index explains a
// failure). A freed tape has no nodes (t.n is 0), so the one comparison covers it.
func (t *Tape[V]) lookup(id cr.NodeID) (int, bool) {
	i := id.Index()
	return i, id.Tape() == t.tag && i < t.n
}

// index returns the recording index of id, or an error wrapping ErrMissingNode (or
// ErrGraphFreed).
func (t *Tape[V]) index(id cr.NodeID) (int, error) {
	if t.freed || id.Tape() != t.tag || id.Index() >= t.n {
		return 0, t.indexErr(id) // out of line, so that index inlines
	}
	return id.Index(), nil
}

// indexErr explains why id has no index on this tape.
func (t *Tape[V]) indexErr(id cr.NodeID) error {
	switch {
	case t.freed:
		return cr.ErrGraphFreed
	case !id.Valid() && t.err != nil:
		// The zero NodeID is what Apply returns once the tape holds an error: that
		// error is the one the caller needs to see.
		return fmt.Errorf("%w: the zero NodeID, returned after the recording error: %w", cr.ErrMissingNode, t.err)
	case !id.Valid():
		return cr.Errorf(cr.ErrMissingNode, "the zero NodeID (returned after a recording error?)")
	case id.Tape() != t.tag:
		return cr.Errorf(cr.ErrMissingNode, "NodeID %v belongs to another tape", id)
	}
	return cr.Errorf(cr.ErrMissingNode, "NodeID %v is past the end of this tape (%d nodes)", id, t.n)
}

// Value returns the value recorded at id. After a recording error, the ops applied
// later return the zero NodeID, and Value of it returns a nil value and an error
// that wraps the tape's error (the one Err returns) as well as
// chainrules.ErrMissingNode: check the error before using the value. (The methods
// of *tensor.Dense that describe a tensor, such as Shape, Size and String, accept a
// nil tensor, so printing one does not panic before the error is seen.)
func (t *Tape[V]) Value(id cr.NodeID) (V, error) {
	i, err := t.index(id)
	if err != nil {
		var zero V
		return zero, err
	}
	nd := t.at(i)
	if t.recycling && t.level == 0 {
		// A value read by the caller may be kept; the reads of rules recording
		// their pullbacks (level above 0) are not.
		nd.flags |= flagEscaped
	}
	return nd.value, nil
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
func (t *Tape[V]) Record(op string, value V, rule cr.Rule[V]) cr.NodeID {
	if !t.enter() {
		return 0
	}
	defer t.leave()
	if t.Err() != nil {
		return 0
	}
	if id := t.record(op, value, rule, t.recordingSite()); !t.misused() {
		return id
	}
	return 0
}

// record is Record with the recording site pc (0 unless anomaly mode is on). While
// gradients are disabled it keeps the value and drops the rule.
func (t *Tape[V]) record(op string, value V, rule cr.Rule[V], pc uintptr) cr.NodeID {
	return t.recordFrom(op, value, rule, nil, 0, pc)
}

// recordFrom is record for an op applied to the inputs ids (the caller's slice,
// which the op never saw), of which need is the union of the flagRequires flags: a
// rule whose inputs are those (the common case) takes need as its flags without
// looking its inputs up again.
func (t *Tape[V]) recordFrom(op string, value V, rule cr.Rule[V], ids []cr.NodeID, need uint8, pc uintptr) cr.NodeID {
	if rule == nil {
		return t.fail(t.applyErr(op, t.n, cr.Errorf(cr.ErrNoRule, "nil rule")))
	}
	flags := need
	if rin := rule.Inputs(); !sameIDs(rin, ids) {
		flags = 0
		for _, in := range rin {
			j, ok := t.lookup(in)
			if !ok {
				_, err := t.index(in)
				return t.fail(t.applyErr(op, t.n, fmt.Errorf("the rule's input: %w", err)))
			}
			flags |= t.at(j).flags & flagRequires
		}
	}
	if t.noGrad {
		id := t.push(value, nil, op, flagConst, pc)
		if id.Valid() {
			t.detach(id.Index(), rule.Inputs())
		}
		return id
	}
	return t.push(value, rule, op, flags, pc)
}

// sameIDs reports whether a and b hold the same NodeIDs in the same order (false for
// a nil b, which names no inputs).
func sameIDs(a, b []cr.NodeID) bool {
	if len(a) != len(b) || b == nil {
		return false
	}
	for j, id := range a {
		if id != b[j] {
			return false
		}
	}
	return true
}

// Apply computes a single-output op on the values at inputs, records the output
// with its rule (only the output while gradients are disabled, see SetGradEnabled)
// and returns its NodeID. An op with several outputs is an error (record it with
// ApplyMulti). After an error (now or earlier) it returns the zero NodeID and Err
// reports the first error; so it does when the op re-entered the tape (a composite
// body that applies ops on the tape it is being applied on, captured in a closure):
// the nested call fails, and this one with it.
func (t *Tape[V]) Apply(op cr.Op[V], inputs ...cr.NodeID) cr.NodeID {
	if !t.enter() {
		return 0
	}
	defer t.leave()
	if t.Err() != nil {
		return 0
	}
	// An OpFunc has one output by construction (see apply).
	if _, fn := op.(cr.OpFunc[V]); !fn {
		if k := op.NumOutputs(); k != 1 {
			return t.fail(t.applyErr(op.Name(), t.n, cr.Errorf(cr.ErrInvalidArgument,
				"the op has %d outputs: record it with ApplyMulti", k)))
		}
	}
	// An op (a composite's body, say) that re-entered the tape made this call fail
	// too, after apply recorded its node.
	if !t.apply(op, 1, inputs, t.recordingSite()) || t.misused() {
		return 0
	}
	return cr.NewNodeID(t.tag, t.n-1)
}

// ApplyMulti computes op on the values at inputs and records its outputs as
// op.NumOutputs() consecutive nodes, whose NodeIDs it returns in order. The op's
// rule runs once per sweep, with the cotangents (or tangents) of all outputs: an
// output nobody uses has an absent cotangent, which is never materialised. Outputs
// that the op declares non-differentiable (chainrules.PartialOp) are recorded like
// constants. ApplyMulti of a single-output op is Apply, with its NodeID in a slice.
//
// After an error (now or earlier) it returns op.NumOutputs() zero NodeIDs and Err
// reports the first error, as Apply does. While gradients are disabled the outputs
// are recorded without the rule.
func (t *Tape[V]) ApplyMulti(op cr.Op[V], inputs ...cr.NodeID) []cr.NodeID {
	k := op.NumOutputs()
	out := make([]cr.NodeID, max(k, 0))
	if !t.enter() {
		return out
	}
	defer t.leave()
	if t.Err() != nil {
		return out
	}
	if !t.apply(op, k, inputs, t.recordingSite()) || t.misused() {
		return out
	}
	for m := range out {
		out[m] = cr.NewNodeID(t.tag, t.n-k+m)
	}
	return out
}

// apply records op, which reports k outputs, on inputs as nodes t.n .. t.n+k-1 and
// reports whether it succeeded (the tape's error says why not). pc is the
// recording site.
func (t *Tape[V]) apply(op cr.Op[V], k int, inputs []cr.NodeID, pc uintptr) bool {
	if k < 1 {
		return t.applyFailed(op.Name(), cr.Errorf(cr.ErrInvalidArgument, "op reports %d outputs", k))
	}
	if t.reg != nil {
		op = t.reg.Resolve(op)
		if n := op.NumOutputs(); n != k {
			return t.applyFailed(op.Name(), cr.Errorf(cr.ErrInvalidArgument, "the registry's override of the op has %d outputs, the op %d", n, k))
		}
	}
	if t.reg != nil || t.isFinite != nil {
		op = t.forInner(op) // composite.go
	}
	// The op gets slices of its own (copying the inputs also keeps the variadic
	// slice on the caller's stack).
	n := len(inputs)
	ids, vals := t.ids.take(n), t.vals.take(n)
	if len(t.ys) < k {
		t.ys = make([]V, k)
	}
	ys := t.ys[:k]
	copy(ids, inputs)
	allNeed := !t.noGrad
	var anyNeed uint8
	for j, in := range ids {
		i, ok := t.lookup(in)
		if !ok {
			_, err := t.index(in)
			return t.applyFailed(op.Name(), fmt.Errorf("input %d: %w", j, err))
		}
		nd := t.at(i)
		vals[j] = nd.value
		allNeed = allNeed && nd.flags&flagRequires != 0
		anyNeed |= nd.flags & flagRequires
	}
	var (
		rule cr.Rule[V]
		err  error
	)
	// With every input needing a cotangent, ApplyMasked is Apply by contract: the
	// type assertion is only paid when masking can save work.
	var mop cr.MaskedOp[V]
	if !allNeed {
		mop, _ = op.(cr.MaskedOp[V])
	}
	if mop != nil {
		need := t.need.take(n)
		for j, in := range ids {
			need[j] = !t.noGrad && t.at(in.Index()).flags&flagRequires != 0
		}
		rule, err = mop.ApplyMasked(ids, vals, ys, need)
	} else if f, ok := op.(cr.OpFunc[V]); ok {
		// The convenience form of a single-output op, which most scalar ops
		// take: its function is called directly, without the interface's Apply
		// and its copy of the output.
		ys[0], rule, err = f.F(ids, vals)
	} else {
		rule, err = op.Apply(ids, vals, ys)
	}
	if err != nil {
		clear(ys)
		return t.applyFailed(op.Name(), err)
	}
	if k == 1 {
		y := ys[0]
		clear(ys) // the slot is reused: it must not keep the value alive
		return t.recordFrom(op.Name(), y, rule, inputs, anyNeed, pc).Valid()
	}
	ok := t.recordGroup(op, ys, rule, pc)
	clear(ys)
	return ok
}

// applyFailed records the failure err of applying op name as the tape's error.
func (t *Tape[V]) applyFailed(name string, err error) bool {
	t.fail(t.applyErr(name, t.n, err))
	return false
}

// recordGroup records the outputs ys of op, which rule differentiates, as the
// group of nodes t.n .. t.n+len(ys)-1 (the rule at the last).
func (t *Tape[V]) recordGroup(op cr.Op[V], ys []V, rule cr.Rule[V], pc uintptr) bool {
	name, k := op.Name(), len(ys)
	if rule == nil {
		return t.applyFailed(name, cr.Errorf(cr.ErrNoRule, "nil rule"))
	}
	var flags uint8
	for _, id := range rule.Inputs() {
		i, err := t.index(id)
		if err != nil {
			return t.applyFailed(name, fmt.Errorf("the rule's input: %w", err))
		}
		flags |= t.at(i).flags & flagRequires
	}
	partial, _ := op.(cr.PartialOp)
	for m, y := range ys {
		var (
			f uint8
			r cr.Rule[V]
		)
		switch {
		case t.noGrad:
			f = flagConst
		case m < k-1:
			f = flagSibling
		default:
			r = rule
		}
		if !t.noGrad && (partial == nil || partial.OutputDifferentiable(m)) {
			f |= flags
		}
		id := t.push(y, r, name, f, pc)
		if t.err != nil {
			return false
		}
		if !t.noGrad {
			grp := k - 1 - m // a sibling's distance to the last; the last's k-1
			if m == k-1 {
				grp = k - 1
			}
			t.at(id.Index()).grp = uint32(grp)
		} else {
			t.detach(id.Index(), rule.Inputs())
		}
	}
	return true
}

// applyErr is the error of recording op as node i: it names the node and the call
// site, the first caller outside this module's packages (found only now that the
// error happened, so that recording costs nothing for it).
func (t *Tape[V]) applyErr(op string, i int, err error) error {
	return &cr.OpError{Op: op, Node: cr.NewNodeID(t.tag, i), Phase: "apply",
		Err: fmt.Errorf("%w (recorded at %s)", err, userSite())}
}

// Free releases the recorded values and rules. Every later use of the tape returns an
// error wrapping ErrGraphFreed.
func (t *Tape[V]) Free() {
	if !t.enter() {
		return
	}
	defer t.leave()
	t.free()
}

func (t *Tape[V]) free() {
	t.chunks, t.n = nil, 0
	t.ids, t.need, t.vals, t.buf, t.ys = arena[cr.NodeID]{}, arena[bool]{}, arena[V]{}, nil, nil
	t.hooks, t.sites, t.detached = nil, nil, nil
	t.dead, t.kept, t.sbuf = nil, nil, nil
	clear(t.one[:])
	t.freed = true
}

var _ cr.Recorder[float64] = (*Tape[float64])(nil)
