package gemm

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// parallelMin is the smallest m*n*k that is split across goroutines: below it
// the product runs on the calling goroutine.
const parallelMin = 1 << 21

// Parallel blocking (see the package doc). parallelRows bounds the rows of op(A)
// packed at once into a shared buffer, and parallelCols is the width of C given
// to one compute unit (rounded up to a multiple of NR).
const (
	parallelRows = 1536
	parallelCols = 96
)

// run computes C = alpha*A*B + beta*C for C m x n, on the calling goroutine
// alone when the product is small or workers < 2, otherwise on at most workers
// goroutines sharing the packed operands.
func run[R float](kn *kernel[R], workers, m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) {
	if workers < 2 || m*n*k < parallelMin {
		serial(kn, 0, m, 0, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	p := newParallel(kn, m, n, k, pa, pb, alpha, beta, c, ldc)
	// More goroutines than compute units in a block would only wait.
	b0 := p.blocks[0]
	workers = min(workers, ceilDiv(b0.mb, kn.mc)*ceilDiv(b0.nc, p.jw))
	if workers < 2 {
		serial(kn, 0, m, 0, n, k, pa, pb, alpha, beta, c, ldc)
		return
	}
	p.bar.parties = workers
	p.bar.cond.L = &p.bar.mu
	pl := poolsFor[R]()
	bufs := pl.shared.Get().(*shared[R])
	defer pl.shared.Put(bufs)
	for i := range 2 {
		bufs.a[i] = aligned(bufs.a[i], p.aLen)
		bufs.b[i] = aligned(bufs.b[i], p.bLen)
	}
	p.bufs = bufs
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work()
		}()
	}
	p.work()
	wg.Wait()
	if p.failure != nil {
		panic(p.failure)
	}
}

// block is one rank-kc update of rows [i0, i0+mb) and columns [jc, jc+nc) of C
// by columns [pc, pc+kc) of op(A) and rows [pc, pc+kc) of op(B).
type block struct {
	jc, nc, pc, kc, i0, mb int
	bi                     int  // index of its packed B block (one per (jc, pc))
	newB                   bool // first block of its B block: B is packed with it
}

// shared holds the packing buffers shared by the workers of one product: two of
// each, so that the next block is packed while the current one is multiplied.
type shared[R float] struct {
	a, b [2][]R
}

// parallel is one product split over several goroutines.
//
// The blocks (jc, pc, i0) of the serial loop nest run one after another. While
// block t is multiplied, block t+1 is packed into the other pair of buffers,
// so a phase t consists of the units: compute units of block t (one MC-row
// slice of the packed A block times one jw-column slice of the packed B block),
// then pack units of block t+1 (MC rows of A, jw columns of B). Goroutines take
// units from an atomic counter in that order until none remain and then wait
// at a barrier that starts the next phase; there is one barrier per block.
// A unit writes to its own part of C or of a packing buffer, so the only
// synchronisation is the counter and the barrier, which also orders the
// rank-kc updates of every element of C exactly as in the serial algorithm.
type parallel[R float] struct {
	kn         *kernel[R]
	pa         packerA[R]
	pb         packerB[R]
	alpha      R
	beta       R
	c          []R
	ldc        int
	blocks     []block
	jw         int // columns of a compute unit and of a B pack unit
	aLen, bLen int // sizes of the packing buffers
	bufs       *shared[R]

	next    atomic.Int64 // next unit of the current phase
	bar     barrier
	aborted atomic.Bool
	mu      sync.Mutex
	failure any // the first panic of a worker
}

func newParallel[R float](kn *kernel[R], m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) *parallel[R] {
	p := &parallel[R]{kn: kn, pa: pa, pb: pb, alpha: alpha, beta: beta, c: c, ldc: ldc,
		jw: roundUp(parallelCols, kn.nr)}
	// Split m into row blocks of at most parallelRows (multiples of MC), as even
	// as possible.
	rowBlocks := ceilDiv(m, parallelRows)
	mbMax := min(roundUp(ceilDiv(m, rowBlocks), kn.mc), roundUp(m, kn.mr))
	kcMax := min(kn.kc, k)
	p.aLen = mbMax * kcMax
	p.bLen = min(kn.nc, roundUp(n, kn.nr)) * kcMax
	bi := 0
	for jc := 0; jc < n; jc += kn.nc {
		nc := min(kn.nc, n-jc)
		for pc := 0; pc < k; pc += kn.kc {
			kc := min(kn.kc, k-pc)
			for i0 := 0; i0 < m; i0 += mbMax {
				p.blocks = append(p.blocks, block{jc: jc, nc: nc, pc: pc, kc: kc, i0: i0, mb: min(mbMax, m-i0), bi: bi, newB: i0 == 0})
			}
			bi++
		}
	}
	return p
}

// units returns the numbers of compute units in phase t (those of block t) and
// of A and B pack units (those of block t+1).
func (p *parallel[R]) units(t int) (nComp, nA, nB int) {
	if t >= 0 {
		b := &p.blocks[t]
		nComp = ceilDiv(b.mb, p.kn.mc) * ceilDiv(b.nc, p.jw)
	}
	if t+1 < len(p.blocks) {
		b := &p.blocks[t+1]
		nA = ceilDiv(b.mb, p.kn.mc)
		if b.newB {
			nB = ceilDiv(b.nc, p.jw)
		}
	}
	return nComp, nA, nB
}

// work is the loop of one goroutine over all phases. A panic in a unit is
// recovered and recorded (run re-panics on the caller's goroutine); the
// goroutine then leaves the barrier and the others stop taking units.
func (p *parallel[R]) work() {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.failure == nil {
				p.failure = &WorkerPanic{Value: r, Stack: debug.Stack()}
			}
			p.mu.Unlock()
			p.aborted.Store(true)
			p.bar.leave(p.resetNext)
		}
	}()
	pl := poolsFor[R]()
	ws := pl.workspaces.Get().(*workspace[R])
	defer pl.workspaces.Put(ws)
	ws.tmp = aligned(ws.tmp, p.kn.mr*p.kn.nr)
	for t := -1; t < len(p.blocks); t++ {
		nComp, nA, nB := p.units(t)
		for total := nComp + nA + nB; !p.aborted.Load(); {
			u := int(p.next.Add(1)) - 1
			if u >= total {
				break
			}
			switch {
			case u < nComp:
				p.compute(t, u, ws.tmp)
			case u < nComp+nA:
				p.packA(t+1, u-nComp)
			default:
				p.packB(t+1, u-nComp-nA)
			}
		}
		p.bar.wait(p.resetNext)
	}
}

func (p *parallel[R]) resetNext() { p.next.Store(0) }

// compute runs compute unit u of block t.
func (p *parallel[R]) compute(t, u int, tmp []R) {
	b := &p.blocks[t]
	kn := p.kn
	nj := ceilDiv(b.nc, p.jw)
	ir, jr := u/nj*kn.mc, u%nj*p.jw
	mc, nc := min(kn.mc, b.mb-ir), min(p.jw, b.nc-jr)
	beta := p.beta
	if b.pc > 0 {
		beta = 1
	}
	i := b.i0 + ir
	macroKernel(kn, b.kc, p.bufs.a[t%2][ir*b.kc:], p.bufs.b[b.bi%2][jr*b.kc:], tmp,
		mc, nc, p.c[i*p.ldc+b.jc+jr:], p.ldc, p.alpha, beta)
}

// packA packs A pack unit u (MC rows) of block t.
func (p *parallel[R]) packA(t, u int) {
	b := &p.blocks[t]
	ir := u * p.kn.mc
	p.pa.pack(p.bufs.a[t%2][ir*b.kc:], p.kn.mr, b.i0+ir, min(p.kn.mc, b.mb-ir), b.pc, b.kc)
}

// packB packs B pack unit u (jw columns) of block t.
func (p *parallel[R]) packB(t, u int) {
	b := &p.blocks[t]
	jr := u * p.jw
	p.pb.pack(p.bufs.b[b.bi%2][jr*b.kc:], p.kn.nr, b.jc+jr, min(p.jw, b.nc-jr), b.pc, b.kc)
}

// barrier is a reusable barrier for a set of goroutines that may shrink.
type barrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	parties int // goroutines taking part
	arrived int
	gen     uint64
}

// wait blocks until every party has called wait (or left); the last one to
// arrive calls last before releasing the others.
func (b *barrier) wait(last func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.arrived++
	if b.arrived >= b.parties {
		b.release(last)
		return
	}
	for g := b.gen; g == b.gen; {
		b.cond.Wait()
	}
}

// leave removes the caller from the parties, releasing the others if they were
// waiting only for it.
func (b *barrier) leave(last func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parties--
	if b.arrived > 0 && b.arrived >= b.parties {
		b.release(last)
	}
}

func (b *barrier) release(last func()) {
	last()
	b.arrived = 0
	b.gen++
	b.cond.Broadcast()
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
// among them; the indices go out in increasing order to whichever goroutine is free,
// so that one slowed down by a busy core holds up the others less. If a call of f
// panics, no further indices are handed out and ForEach panics on the calling
// goroutine, after the other goroutines have stopped, with the original value if
// the panic was on the calling goroutine and a [*WorkerPanic] otherwise.
func ForEach(n, workers int, f func(i int)) {
	var (
		next    atomic.Int64
		aborted atomic.Bool
		mu      sync.Mutex
		failure any
	)
	work := func() {
		for i := int(next.Add(1)) - 1; i < n && !aborted.Load(); i = int(next.Add(1)) - 1 {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range min(workers, n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					aborted.Store(true)
					mu.Lock()
					if failure == nil {
						failure = &WorkerPanic{Value: r, Stack: debug.Stack()}
					}
					mu.Unlock()
				}
			}()
			work()
		}()
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				aborted.Store(true)
				wg.Wait()
				panic(r)
			}
		}()
		work()
	}()
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}

func ceilDiv(x, d int) int { return (x + d - 1) / d }
