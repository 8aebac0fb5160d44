package gemm

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// parallelMin is the smallest m*n*k that is split across goroutines: below it
// the product runs on the calling goroutine.
const parallelMin = 1 << 21

// Parallel blocking (see the package doc). parallelRows bounds the rows of op(A)
// packed at once into a shared buffer, parallelCols is the width of C given to
// one compute unit (rounded up to a multiple of NR), parallelUnitRows bounds its
// height (MC, or less if MC is larger), and parallelBufs is the number of
// shared buffers of each operand (blocks packed ahead).
const (
	parallelRows     = 1024
	parallelCols     = 96
	parallelUnitRows = 192
	parallelBufs     = 3
)

// The sequence of units needs at least two buffers of each operand: with one,
// P(1), which comes before C(0), would wait for C(0). (A negative value does
// not compile.)
const _ = uint(parallelBufs - 2)

// parallelSlab is the narrowest slab worth a goroutine of its own in the slab
// split: every slab packs the whole shared operand.
const parallelSlab = 256

// slabCount returns the number of slabs of the slab split of a dimension of the
// given size: workers, or 2*workers when those still are more than half
// parallelSlab wide (size > parallelSlab*workers). It is a multiple of workers,
// so that on idle cores the goroutines end together: 3 slabs on 2 goroutines (as
// the earlier count, size/parallelSlab between workers and 2*workers, gave for
// sizes 768 to 1023, e.g. the 784 rows of an MLP's first weight gradient) keep
// one goroutine on two slabs while the other computes one, a speedup of at most
// 1.5.
func slabCount(workers, size int) int {
	if size > parallelSlab*workers {
		return 2 * workers
	}
	return workers
}

// sharedPacking selects the parallel scheme. The default (false) is the slab
// split: the larger of m and n is cut into slabs of whole tiles, one per
// goroutine or two if they are still parallelSlab wide, taken from a counter,
// each computed by the serial loop nest with its own packing buffers. With
// sharedPacking set, the goroutines share the packed blocks of B and take
// small units (runShared, BLIS's scheme). On the project's 2-core machine
// the slab split measured faster: 2 goroutines at 1.92x one at n = 1024 on an
// idle machine (shared packing 1.76x), and 0.99x with a busy loop on one core
// (shared 0.90x): each slab's part of B stays in its core's L2, where the shared
// 2 MiB block is read from L3 by both cores, and slabs never wait for one
// another. Where the slabs would be narrower than parallelSlab (the larger
// dimension below parallelSlab per slab: an MLP's 256-wide products), the
// re-packing outweighs that, and run takes the shared scheme whatever this
// switch says: the MLP 784-256-256-10's gradient and HVP at 2 goroutines went
// 2.61 -> 2.27 ms and 6.73 -> 6.08 ms (6 interleaved runs), and were no slower
// with a busy loop on one core. Both schemes give the serial result bit for bit.
var sharedPacking = false

// directOff turns the direct path off (tests compare it with the packed one).
var directOff = false

// run computes C = alpha*A*B + beta*C for C m x n, on the calling goroutine
// alone when the product is small or workers < 2, otherwise on at most workers
// goroutines (see sharedPacking for the two schemes). A panic on a worker comes
// back to the caller as a *WorkerPanic.
func run[R float](kn *kernel[R], workers, m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) {
	if workers < 2 || m*n*k < parallelMin {
		if !directOff && directRun(kn, m, n, k, pa, pb, alpha, beta, c, ldc) {
			return
		}
		serial(kn, 0, m, 0, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	size, unit := n, kn.nr
	if m > n {
		size, unit = m, kn.mr
	}
	tiles := (size + unit - 1) / unit
	slabs := min(slabCount(workers, size), tiles)
	// Slabs narrower than parallelSlab would each re-pack the whole shared
	// operand for little work of their own (an MLP's 256-wide products: 2 slabs
	// of 128); there the goroutines share the packed blocks (see sharedPacking).
	if sharedPacking || (slabs >= 2 && size < parallelSlab*slabs) {
		runShared(kn, workers, m, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	if slabs < 2 {
		serial(kn, 0, m, 0, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	ForEach(slabs, workers, func(s int) {
		lo := tiles * s / slabs * unit
		hi := min(size, tiles*(s+1)/slabs*unit)
		if m > n {
			serial(kn, lo, hi, 0, n, k, pa, pb, alpha, beta, c, ldc)
		} else {
			serial(kn, 0, m, lo, hi, k, pa, pb, alpha, beta, c, ldc)
		}
	})
}

// runShared is run with the goroutines sharing the packed operands (see
// sharedPacking).
func runShared[R float](kn *kernel[R], workers, m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) {
	p := newParallel(kn, workers, m, n, k, pa, pb, alpha, beta, c, ldc)
	// More goroutines than compute units in a block would only wait.
	workers = min(workers, p.nComp(0))
	if workers < 2 {
		serial(kn, 0, m, 0, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	pl := poolsFor[R]()
	bufs := pl.shared.Get().(*shared[R])
	defer pl.shared.Put(bufs)
	for i := range min(parallelBufs, p.blocks[len(p.blocks)-1].bi+1) {
		bufs.b[i] = aligned(bufs.b[i], p.bLen)
	}
	p.bufs = bufs
	var wg sync.WaitGroup
	// While vmath's pool backs off (the machine's cores busy with other
	// processes), the caller takes every unit alone, in the same sequence.
	for range vmath.Helpers(workers - 1) {
		wg.Add(1)
		vmath.Go(func() {
			defer wg.Done()
			p.work()
		})
	}
	p.work()
	// The caller waits for the units, not for the goroutines: one that the
	// runtime or the operating system starts only after the others have taken
	// every unit (its core busy with another process) finds none left and ends
	// without holding the caller up. A goroutine touches the shared buffers only
	// inside a unit, before it counts the unit done, so they can go back to the
	// pool once every unit is. After a panic, the caller waits for the goroutines
	// to stop, so that none still writes C when the panic is raised again.
	if p.waitFor(func() bool { return p.computedThrough(len(p.blocks) - 1) }) {
		return
	}
	wg.Wait()
	panic(p.failure)
}

// block is one rank-kc update of rows [i0, i0+mb) and columns [jc, jc+nc) of C
// by columns [pc, pc+kc) of op(A) and rows [pc, pc+kc) of op(B).
type block struct {
	jc, nc, pc, kc, i0, mb int
	bi                     int  // index of its packed B block (one per (jc, pc))
	newB                   bool // first block of its B block: B is packed with it
	packer                 int  // the first block of its B block, whose pack units pack it
	region                 int  // index of its part (jc, i0) of C
	prev                   int  // the block before it on the same part of C, or -1
}

// shared holds the packing buffers shared by the workers of one product.
type shared[R float] struct {
	b [parallelBufs][]R
}

// parallel is one product split over several goroutines.
//
// The blocks (jc, pc, i0) of the serial loop nest are packed and multiplied in
// units: a pack unit packs a strip of jw columns of the B block into a shared
// buffer, and a compute unit packs its rows (at most MC) of the A block into its
// goroutine's own buffer and multiplies them by the whole packed B block, strip
// by strip, into C (by one strip only when the rows of a block are fewer than
// two tiles per goroutine, so that a short, wide C is still split). (Compute units of jw columns, several per row, had both
// goroutines pack most rows of A, since they take the units of a row in turn:
// whole rows made the MLP's 256-wide products 2-8% and its gradient at two
// goroutines 5% faster.) All units form one sequence, which the goroutines
// take in order from an atomic counter:
//
//	P(0) P(1) | C(0) P(2) | C(1) P(3) | C(2) P(4) | ... | C(T-1)
//
// where P(t) are the pack units of block t (none if it shares its B block with
// the block before) and C(t) its compute units. Instead of barriers, each unit
// waits (if ever) only for what it needs: C(t)[u] for each strip of B as it
// comes to it (with the whole B block awaited first, the goroutine that packed
// 2 of the 3 strips of an MLP's 256 x 256 x 256 product held the other up,
// 38-57 us of waiting per product of 230 in all) and, before it starts, for
// C(prev)[u], the same unit of the previous block on the same part of C
// (which fixes the order of the rank-KC updates of every element of C to the
// serial one); P(t) for C(t-3) to have finished reading the buffer it
// overwrites (there are three). Packing A privately costs at most one packing
// of A per goroutine instead of one in all, and keeps the packed rows in the
// cache of the core that uses them: with A packed once into a shared buffer a
// block ahead, two goroutines needed 2-3% more CPU time per product. Every
// dependency is at least one block earlier in the sequence than the unit
// waiting for it, so a goroutine that is preempted while it holds a unit holds
// the others up only if it is still off the CPU a block later.
type parallel[R float] struct {
	kn       *kernel[R]
	pa       packerA[R]
	pb       packerB[R]
	alpha    R
	beta     R
	c        []R
	ldc      int
	blocks   []block
	jw       int // columns of a B pack unit (a strip)
	cw       int // columns of a compute unit: jw or the strips of a whole block
	unitRows int // rows of a compute unit
	// unitsPerRegion is the stride of lastDone: the compute units of a block
	// of the largest shape.
	unitsPerRegion int
	aLen, bLen     int // sizes of a worker's A buffer and of a shared B buffer
	bufs           *shared[R]

	phaseStart []int          // start of each phase of the sequence, and its end
	next       atomic.Int64   // next unit of the sequence
	strips     int            // the stride of stripDone: pack units of a block of the largest shape
	stripDone  []atomic.Bool  // per block and pack unit: packed
	compDone   []atomic.Int32 // per block: compute units done
	lastDone   []atomic.Int32 // per region and compute unit: last block done
	compPrefix atomic.Int32   // blocks known to be fully computed

	mu      sync.Mutex
	cond    sync.Cond
	waiters atomic.Int32
	aborted atomic.Bool
	failure any // the first panic of a worker
}

func newParallel[R float](kn *kernel[R], workers, m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) *parallel[R] {
	p := &parallel[R]{kn: kn, pa: pa, pb: pb, alpha: alpha, beta: beta, c: c, ldc: ldc,
		jw: roundUp(parallelCols, kn.nr), unitRows: min(kn.mc, roundUp(parallelUnitRows, kn.mr))}
	p.cond.L = &p.mu
	// Split m into row blocks of at most parallelRows (multiples of MC), as even
	// as possible.
	rowBlocks := ceilDiv(m, parallelRows)
	mbMax := min(roundUp(ceilDiv(m, rowBlocks), p.unitRows), roundUp(m, kn.mr))
	nIb := ceilDiv(m, mbMax)
	// Compute units span the block's width, unless its rows are too few to be
	// split between the goroutines (a short, wide C): then they are one strip wide.
	p.strips = ceilDiv(min(kn.nc, n), p.jw)
	p.cw = p.jw
	if ceilDiv(mbMax, kn.mr) >= 2*workers {
		p.cw = p.strips * p.jw
	}
	colUnits := ceilDiv(min(kn.nc, n), p.cw)
	p.unitRows = unitRows(mbMax, colUnits, p.unitRows, kn.mr, workers)
	kcMax := min(kn.kc, k)
	p.aLen = p.unitRows * kcMax * kn.aWidth()
	p.bLen = min(kn.nc, roundUp(n, kn.nr)) * kcMax
	bi, jci := 0, 0
	for jc := 0; jc < n; jc += kn.nc {
		nc := min(kn.nc, n-jc)
		for pc := 0; pc < k; pc += kn.kc {
			kc := min(kn.kc, k-pc)
			for ib, i0 := 0, 0; i0 < m; ib, i0 = ib+1, i0+mbMax {
				prev := -1
				if pc > 0 {
					prev = len(p.blocks) - nIb
				}
				p.blocks = append(p.blocks, block{jc: jc, nc: nc, pc: pc, kc: kc, i0: i0, mb: min(mbMax, m-i0),
					bi: bi, newB: i0 == 0, packer: len(p.blocks) - ib, region: jci*nIb + ib, prev: prev})
			}
			bi++
		}
		jci++
	}
	T := len(p.blocks)
	p.stripDone = make([]atomic.Bool, T*p.strips)
	p.compDone = make([]atomic.Int32, T)
	// Compute units per region: the region's blocks all have its shape.
	p.unitsPerRegion = ceilDiv(mbMax, p.unitRows) * colUnits
	p.lastDone = make([]atomic.Int32, jci*nIb*p.unitsPerRegion)
	for i := range p.lastDone {
		p.lastDone[i].Store(-1)
	}
	p.phaseStart = make([]int, T+2)
	for s := range T + 1 {
		size := 0
		if s == 0 {
			size = p.nPack(0)
		} else {
			size = p.nComp(s - 1)
		}
		if s+1 < T {
			size += p.nPack(s + 1)
		}
		p.phaseStart[s+1] = p.phaseStart[s] + size
	}
	return p
}

// unitRows returns the rows of a compute unit for row blocks of mb rows and
// colUnits units across (1 in the shared scheme, whose units span the block):
// the row units of a block as equal as whole tiles of mr rows allow, at most
// maxRows rows each (the default height, parallelUnitRows or MC), and as many as
// make the units of a block a multiple of workers (when the tiles allow). The
// units of a block then fall evenly on the goroutines, where a last partial
// round would leave one of them idle: an MLP's 256 x 256 C in float64 was 3
// units of 96, 96 and 64 rows, and is now 4 of 64; in float32 (MC 384) its
// 192 + 64 rows are now 128 + 128.
func unitRows(mb, colUnits, maxRows, mr, workers int) int {
	rowUnits := ceilDiv(mb, maxRows)
	for rowUnits*colUnits%workers != 0 && rowUnits < ceilDiv(mb, mr) {
		rowUnits++
	}
	return roundUp(ceilDiv(mb, rowUnits), mr)
}

// nComp returns the number of compute units of block t.
func (p *parallel[R]) nComp(t int) int {
	b := &p.blocks[t]
	return ceilDiv(b.mb, p.unitRows) * ceilDiv(b.nc, p.cw)
}

// nPack returns the number of pack units of block t: those of its B block if
// it is the first block to use it.
func (p *parallel[R]) nPack(t int) int {
	b := &p.blocks[t]
	if !b.newB {
		return 0
	}
	return ceilDiv(b.nc, p.jw)
}

// work is the loop of one goroutine over the sequence of units. A panic in a
// unit is recovered and recorded (run re-panics on the caller's goroutine), and
// the other goroutines stop taking units.
func (p *parallel[R]) work() {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.failure == nil {
				p.failure = &WorkerPanic{Value: r, Stack: debug.Stack()}
			}
			p.aborted.Store(true)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
	}()
	pl := poolsFor[R]()
	ws := pl.workspaces.Get().(*workspace[R])
	defer pl.workspaces.Put(ws)
	ws.tmp = aligned(ws.tmp, p.kn.mr*p.kn.nr)
	ws.a = aligned(ws.a, p.aLen)
	T := len(p.blocks)
	end := p.phaseStart[T+1]
	for s := 0; !p.aborted.Load(); {
		u := int(p.next.Add(1)) - 1
		if u >= end {
			return
		}
		for u >= p.phaseStart[s+1] {
			s++
		}
		l := u - p.phaseStart[s]
		switch {
		case s == 0 && l < p.nPack(0):
			p.pack(0, l)
		case s == 0:
			p.pack(1, l-p.nPack(0))
		case l < p.nComp(s-1):
			p.compute(s-1, l, ws)
		default:
			p.pack(s+1, l-p.nComp(s-1))
		}
	}
}

// pack runs pack unit u (jw columns of B) of block t, after the compute units
// that read the buffer it overwrites.
func (p *parallel[R]) pack(t, u int) {
	if t >= parallelBufs {
		if !p.waitFor(func() bool { return p.computedThrough(t - parallelBufs) }) {
			return
		}
	}
	b := &p.blocks[t]
	jr := u * p.jw
	p.pb.pack(p.bufs.b[b.bi%parallelBufs][jr*b.kc:], p.kn.nr, b.jc+jr, min(p.jw, b.nc-jr), b.pc, b.kc)
	p.stripDone[t*p.strips+u].Store(true)
	p.signal()
}

// compute runs compute unit u of block t, after the same unit of the previous
// block on the same part of C, each strip of B once it is packed. The unit's
// rows of A are packed by the goroutine itself into its own buffer.
func (p *parallel[R]) compute(t, u int, ws *workspace[R]) {
	b := &p.blocks[t]
	kn := p.kn
	last := &p.lastDone[b.region*p.unitsPerRegion+u]
	if !p.waitFor(func() bool { return int(last.Load()) == b.prev }) {
		return
	}
	nj := ceilDiv(b.nc, p.cw)
	ir, j0 := u/nj*p.unitRows, u%nj*p.cw
	mc := min(p.unitRows, b.mb-ir)
	beta := p.beta
	if b.pc > 0 {
		beta = 1
	}
	i := b.i0 + ir
	p.pa.pack(ws.a, kn.mr, i, mc, b.pc, b.kc)
	for jr := j0; jr < min(j0+p.cw, b.nc); jr += p.jw {
		packed := &p.stripDone[b.packer*p.strips+jr/p.jw]
		if !p.waitFor(packed.Load) {
			return
		}
		macroKernel(kn, b.kc, ws.a, p.bufs.b[b.bi%parallelBufs][jr*b.kc:], ws.tmp,
			mc, min(p.jw, b.nc-jr), p.c[i*p.ldc+b.jc+jr:], p.ldc, p.alpha, beta)
	}
	last.Store(int32(t))
	p.compDone[t].Add(1)
	p.signal()
}

// computedThrough reports whether blocks 0..t are fully computed.
func (p *parallel[R]) computedThrough(t int) bool {
	i := int(p.compPrefix.Load())
	for ; i <= t; i++ {
		if int(p.compDone[i].Load()) < p.nComp(i) {
			break
		}
	}
	p.compPrefix.Store(int32(i))
	return i > t
}

// waitFor returns true when ready() holds, false if the product is aborted
// first: it spins for a while (vmath.Spin), then sleeps until the next unit
// completes.
func (p *parallel[R]) waitFor(ready func() bool) bool {
	if vmath.Spin(func() bool { return p.aborted.Load() || ready() }) {
		return !p.aborted.Load()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiters.Add(1)
	defer p.waiters.Add(-1)
	for !p.aborted.Load() {
		if ready() {
			return true
		}
		p.cond.Wait()
	}
	return false
}

// signal wakes the goroutines waiting in waitFor, if any, after a unit is done.
func (p *parallel[R]) signal() {
	if p.waiters.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// WorkerPanic is the value with which [Dgemm], [Zgemm] and [ForEach] panic on
// the caller's goroutine when the work they run on another goroutine panicked:
// Value is the original panic value and Stack the worker's stack at the panic.
type WorkerPanic struct {
	Value any
	Stack []byte
}

func (w *WorkerPanic) Error() string {
	return fmt.Sprintf("gemm: panic in worker goroutine: %v\n\n%s", w.Value, w.Stack)
}

// Unwrap returns the original panic value if it is an error.
func (w *WorkerPanic) Unwrap() error {
	err, _ := w.Value.(error)
	return err
}

// ForEach calls f(i) for every i < n, on at most workers goroutines, the calling one
// among them (vmath.Each's schedule); the indices go out in increasing order to whichever goroutine is free,
// so that one slowed down by a busy core holds up the others less. ForEach returns
// when every index is done, not when every goroutine it started has run: one that
// starts only after the others have taken all the indices finds none left and
// ends, without holding up the caller. If a call of f panics, no further indices
// are computed and ForEach panics on the calling goroutine, after the calls under
// way on other goroutines have returned, with the original value if the panic was
// on the calling goroutine and a [*WorkerPanic] otherwise.
func ForEach(n, workers int, f func(i int)) {
	switch p := vmath.Each(n, workers, f); {
	case p == nil:
	case p.Caller:
		panic(p.Value)
	default:
		panic(&WorkerPanic{Value: p.Value, Stack: p.Stack})
	}
}

// ForEachOwned is ForEach on vmath.EachOwned's schedule: each goroutine takes the
// indices of a contiguous share of its own first, then helps with the others'
// from their ends, so that on idle cores every call gives a goroutine the same
// indices (and their data the same core's cache). Its panics are ForEach's.
func ForEachOwned(n, workers int, f func(i int)) {
	switch p := vmath.EachOwned(n, workers, f); {
	case p == nil:
	case p.Caller:
		panic(p.Value)
	default:
		panic(&WorkerPanic{Value: p.Value, Stack: p.Stack})
	}
}

func ceilDiv(x, d int) int { return (x + d - 1) / d }
