package chainrules

import "strconv"

// NodeID names a value recorded on a tape. Within one tape the indices are dense and
// in recording order: every input of an op has a smaller index than the op's output,
// so decreasing index order is a topological order of any recorded graph.
//
// A NodeID also carries the identity of the tape that issued it, so an engine can
// tell a foreign NodeID from its own. The zero NodeID names nothing; it is what a
// recording call returns after an error.
type NodeID uint64

// NewNodeID returns the NodeID of the value with the given index on the tape with the
// given tag. It is for engine implementers; users receive NodeIDs from a tape. Tag 0
// is reserved for "no tape", so NewNodeID(0, i) is not a valid node of any tape.
func NewNodeID(tape uint32, index int) NodeID {
	return NodeID(uint64(tape)<<32 | uint64(uint32(index)))
}

// Index returns the dense recording index of id on its tape.
func (id NodeID) Index() int { return int(uint32(id)) }

// Tape returns the tag of the tape that issued id (0 for the zero NodeID).
func (id NodeID) Tape() uint32 { return uint32(id >> 32) }

// Valid reports whether id was issued by some tape.
func (id NodeID) Valid() bool { return id.Tape() != 0 }

// String formats id as "%<index>" (the tape tag is left out; it only matters for
// telling tapes apart), or "%invalid" for the zero NodeID.
func (id NodeID) String() string {
	if !id.Valid() {
		return "%invalid"
	}
	return "%" + strconv.Itoa(id.Index())
}
