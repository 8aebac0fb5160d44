package optim

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// BatchConfig says how Batches cuts a dataset, as torch.utils.data.DataLoader's
// arguments of the same names.
type BatchConfig struct {
	BatchSize int    // samples per batch, >= 1
	Shuffle   bool   // draw a new order of the samples at every epoch
	Seed      uint64 // seed of the order (a PCG source), so that runs repeat
	DropLast  bool   // drop the last batch of an epoch if it is short
}

// Batches iterates over minibatches of a dataset held in tensors: samples x [N, ...]
// and, optionally, targets y [N, ...], cut along their first axis. An epoch is a
// run of Next until it returns false; the next call of Next starts a new epoch
// (with a new order if Shuffle). The batch tensors are made once and refilled at
// every Next (Next allocates nothing), so a batch is valid only until the next call
// of Next; clone it to keep it.
//
//	for epoch := 0; epoch < epochs; epoch++ {
//		for it.Next() {
//			x, y := it.Batch()
//			...
//		}
//	}
type Batches struct {
	cfg         BatchConfig
	x, y        column // the dataset; y is nil without targets
	n           int
	order       []int
	rng         *rand.Rand
	pos         int // next sample of the order; -1 before an epoch starts
	full, short [2]*tensor.Dense
	curX, curY  *tensor.Dense
	epoch       int
}

// column is one tensor of a dataset, samples x [N, ...] or targets y [N, ...], with
// the buffer its batches are copied into.
type column interface {
	// copySample copies sample s of the dataset to row r of the buffer.
	copySample(r, s int)
	// view returns the tensor of the first m rows of the buffer.
	view(m int) (*tensor.Dense, error)
}

// rows is a column of element type T: data holds the N samples of row elements
// each, row-major; buf holds a batch of them.
type rows[T float] struct {
	data, buf []T
	row       int
	shape     []int // the shape of one sample
}

func (c *rows[T]) copySample(r, s int) {
	copy(c.buf[r*c.row:(r+1)*c.row], c.data[s*c.row:(s+1)*c.row])
}

func (c *rows[T]) view(m int) (*tensor.Dense, error) {
	return tensor.FromSlice(c.buf[:m*c.row], append([]int{m}, c.shape...)...)
}

// newColumn returns the column of t, a float64 or float32 tensor [n, ...], with a
// buffer of bs samples.
func newColumn(t *tensor.Dense, n, bs int) column {
	row := t.Size() / n
	if t.DType() == tensor.Float32 {
		return &rows[float32]{data: t.Contiguous().Float32s(), buf: make([]float32, bs*row), row: row, shape: t.Shape()[1:]}
	}
	return &rows[float64]{data: t.Contiguous().Float64s(), buf: make([]float64, bs*row), row: row, shape: t.Shape()[1:]}
}

func realDType(t *tensor.Dense) bool {
	return t.DType() == tensor.Float64 || t.DType() == tensor.Float32
}

// NewBatches returns an iterator over the minibatches of (x, y); y may be nil. x
// and y must be float64 or float32 tensors of rank >= 1 with the same first
// dimension N >= 1 (each batch has the dtype of its tensor). It returns an error
// wrapping chainrules.ErrInvalidArgument or ErrShapeMismatch otherwise, or for a
// batch size < 1.
func NewBatches(x, y *tensor.Dense, cfg BatchConfig) (*Batches, error) {
	if cfg.BatchSize < 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.Batches: batch size %d: want >= 1", cfg.BatchSize)
	}
	if x == nil || !realDType(x) || x.Rank() < 1 || x.Shape()[0] < 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.Batches: x must be a float64 or float32 tensor [N, ...] with N >= 1")
	}
	n := x.Shape()[0]
	if y != nil && (!realDType(y) || y.Rank() < 1 || y.Shape()[0] != n) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "optim.Batches: y (%v, shape %v) must be a float64 or float32 tensor with first dimension %d, as x %v", y.DType(), y.Shape(), n, x.Shape())
	}
	b := &Batches{cfg: cfg, n: n, pos: -1, order: make([]int, n), rng: rand.New(rand.NewPCG(cfg.Seed, 0))}
	for i := range b.order {
		b.order[i] = i
	}
	bs := min(cfg.BatchSize, n)
	b.x = newColumn(x, n, bs)
	if y != nil {
		b.y = newColumn(y, n, bs)
	}
	// The full batch and the short last one are views of the same buffers.
	var err error
	if b.full, err = b.views(bs); err != nil {
		return nil, err
	}
	if r := n % bs; r != 0 && !cfg.DropLast {
		if b.short, err = b.views(r); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// views makes tensors of m samples over the heads of the batch buffers.
func (b *Batches) views(m int) ([2]*tensor.Dense, error) {
	var out [2]*tensor.Dense
	var err error
	if out[0], err = b.x.view(m); err != nil {
		return out, err
	}
	if b.y != nil {
		if out[1], err = b.y.view(m); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Len returns the number of batches in an epoch.
func (b *Batches) Len() int {
	bs := min(b.cfg.BatchSize, b.n)
	if b.cfg.DropLast {
		return b.n / bs
	}
	return (b.n + bs - 1) / bs
}

// Next fills the next batch and reports whether there was one; false ends the
// epoch.
func (b *Batches) Next() bool {
	if b.pos < 0 {
		if b.cfg.Shuffle {
			for i := b.n - 1; i > 0; i-- {
				j := b.rng.IntN(i + 1)
				b.order[i], b.order[j] = b.order[j], b.order[i]
			}
		}
		b.pos = 0
		b.epoch++
	}
	bs := min(b.cfg.BatchSize, b.n)
	m := min(bs, b.n-b.pos)
	if m == 0 || (m < bs && b.cfg.DropLast) {
		b.pos = -1
		return false
	}
	for r, s := range b.order[b.pos : b.pos+m] {
		b.x.copySample(r, s)
		if b.y != nil {
			b.y.copySample(r, s)
		}
	}
	t := b.full
	if m < bs {
		t = b.short
	}
	b.curX, b.curY = t[0], t[1]
	b.pos += m
	return true
}

// Batch returns the current batch: x [B, ...] and y [B, ...] (nil if the dataset has
// no targets), with B the batch size or, for a short last batch, fewer. The tensors
// are refilled by the next call of Next.
func (b *Batches) Batch() (x, y *tensor.Dense) { return b.curX, b.curY }

// Indices returns the sample indices of the current batch, in batch order. The
// slice is reused by the next call of Next.
func (b *Batches) Indices() []int {
	if b.pos < 0 || b.curX == nil {
		return nil
	}
	return b.order[b.pos-b.curX.Shape()[0] : b.pos]
}

// Epoch returns the number of epochs started (1 during the first).
func (b *Batches) Epoch() int { return b.epoch }
