package vmath

import (
	"sync/atomic"
	"time"
)

// The worker pool adapts to a machine whose cores are busy with other processes.
//
// An idle worker of the pool polls for its next function for workerSpin before it
// parks, and a goroutine waiting for the last indices of a region polls for up to
// spinWait (Spin): on idle cores that saves the tens of microseconds the runtime
// takes to wake a sleeping thread at every region. On a machine whose cores are all
// busy, it costs more than it saves: the polling thread is one more runnable thread
// for the operating system to share the cores between, so that with one core
// loaded by another process the calling goroutine's thread got about two thirds of
// a core even in the serial code between regions, and a worker that the operating
// system has taken off its core takes its next function milliseconds late, when
// the caller has done most of the region alone. With a busy loop on one of the
// project's two cores, 49 of the 61 rows of bench/compare.py were slower at
// GOMAXPROCS=2 than at 1 with the polling (43 without it).
//
// So the pool measures whether its helpers and its polling pay, three ways:
//
//   - each hand-off to a polling worker: the time from goPooled to the worker
//     taking the function. A polling worker on a core of its own takes it within
//     a microsecond; one that takes more than lateHandoff was off its core, or
//     its processor ran other goroutines: on Linux, where the thread's processor
//     time tells the two apart, only the first counts (on idle cores, 2% of the
//     MLP's hand-offs came late, during garbage collections) (noteHandoff);
//   - each region of Each and EachOwned that started helpers: late when the
//     calling goroutine waited for the helpers' indices longer than running them
//     itself would have taken (noteRegion);
//   - the idle workers' polling, on Linux: the processor time of the polling
//     thread (CLOCK_THREAD_CPUTIME_ID) against the time it polled, added up over
//     samples of spinSample; a sample whose threads were off their core for more
//     than an eighth of it counts as late (noteSpin). This is the measure that
//     sees the cost of the polling itself: a polling thread that shares a core
//     with others hands off promptly whenever it is on the core, and takes that
//     core from the calling goroutine the rest of the time.
//
// Late measures raise a score, prompt ones lower it, and when late ones come
// often (two within a few prompt ones), the pool backs off for a while: workers
// park at once instead of polling, Spin gives up after its first polls, and Each,
// EachOwned and Helpers run the regions on the calling goroutine alone (no
// hand-off at all). The back-off lasts minBackoff the first time and doubles, up
// to maxBackoff, each time late measures resume after it; then the pool polls and
// hands regions out again, which measures again (the probe). promptReset prompt
// measures in a row set the back-off to minBackoff again. The chunks of every
// region are the same whether it runs on one goroutine or several, so results
// never depend on the back-off.
//
// While backing off, a region of Each that lasts deferSpawn still starts its
// helpers then, for the indices left (see deferSpawn).
//
// Measured with a busy loop on one of the project's two cores (the benchmarks
// and the loop in a session ahead of the other processes on the machine, 6
// interleaved rounds, ratio of the best GOMAXPROCS=2 time to the best
// GOMAXPROCS=1 time, before -> after): MLP gradient 1.42 -> 1.14, MLP forward
// 1.57 -> 1.28, cross_entropy gradient 1.54 -> 1.25, cholesky 512 1.76 ->
// 1.48, lu_factor 512 1.66 -> 1.31, layer_norm 1.63 -> 1.59, attention 1.71 ->
// 1.66 (the rounds' own ratios spread by +-0.3). What remains is mostly the
// runtime's, not the pool's: with no helper ever started, GOMAXPROCS=2 under
// that load was still 1.6-2.2x slower than 1 on the MLP's forward pass,
// layer_norm, attention and lu_factor, because the garbage collector's phases
// that stop the world wait for the second processor's thread when the
// operating system has taken it off its core (0.29 + 0.36 ms a collection
// against 0.008 + 0.001 ms at GOMAXPROCS=1, gctrace, MLP forward); with
// GOGC=2000 the same serial runs were 1.00-1.06x. On idle cores (chrt -f) the
// pool rarely backs off (2% of hand-offs late) and the two-goroutine speedups
// are unchanged.

// lateHandoff is the hand-off time past which a polling worker is taken to have
// been off its core: a polling worker on its own core takes a function within a
// microsecond, one that the operating system preempted waits for a time slice
// (milliseconds).
const lateHandoff = 50 * time.Microsecond

// Back-off bounds: the first back-off, the longest, and the prompt hand-offs in a
// row after which the next back-off is the first again.
const (
	minBackoff  = 2 * time.Millisecond
	maxBackoff  = 256 * time.Millisecond
	promptReset = 64
)

// Score of the late hand-offs: a late one adds lateWeight, a prompt one takes 1
// off, and the pool backs off when the score reaches lateTrigger, that is after
// two late hand-offs separated by fewer than lateWeight prompt ones (a late
// fraction above about a fifth).
const (
	lateWeight  = 4
	lateTrigger = 2 * lateWeight
)

// epoch is the origin of nanotime.
var epoch = time.Now()

// nanotime returns the monotonic time since epoch, in nanoseconds.
func nanotime() int64 { return int64(time.Since(epoch)) }

// Modes of the back-off: adaptive, or forced on or off by tests.
const (
	modeAdaptive = iota
	modeNever    // never back off (SetSpawn's replacements see every worker)
	modeAlways   // always backed off
)

// load is the state of the back-off. Its fields are read and written with atomic
// operations, without a lock: two goroutines that update it at once may lose one
// hand-off's count, which only delays a decision by one hand-off.
var load struct {
	mode     atomic.Int32
	score    atomic.Int32 // late hand-offs' score (see lateWeight)
	prompt   atomic.Int32 // prompt hand-offs in a row
	backoff  atomic.Int64 // length of the next back-off, ns (0: minBackoff)
	until    atomic.Int64 // nanotime at which the current back-off ends
	entered  atomic.Int64 // back-offs so far (tests)
	handoffs atomic.Int64 // hand-offs measured so far (tests)
	regions  atomic.Int64 // regions measured so far (tests)
}

// backedOff reports whether the pool is backing off: workers park at once and
// regions run on the calling goroutine.
func backedOff() bool { return backedOffAt(nanotime()) }

// backedOffAt is backedOff at nanotime now.
func backedOffAt(now int64) bool {
	switch load.mode.Load() {
	case modeNever:
		return false
	case modeAlways:
		return true
	}
	return now < load.until.Load()
}

// noteHandoff records a hand-off to a polling worker that took it after d.
func noteHandoff(d time.Duration) {
	load.handoffs.Add(1)
	if d <= lateHandoff {
		notePrompt()
	} else {
		noteLate()
	}
}

// noteRegion records whether the helpers of a region of n indices paid: the
// calling goroutine ran callerRan of them in work, then waited wait for the
// helpers' last ones. Run alone, it would have taken about work/callerRan for
// each of the n-callerRan indices the helpers ran; when its wait was longer than
// that (and than lateHandoff), the region took longer than on the calling
// goroutine alone: a helper that held an index was off its core (or started so
// late that it took an index the caller would have finished sooner). A region
// whose helpers ran no index says nothing (on idle cores, one too short for a
// parked worker to wake in time).
func noteRegion(n, callerRan int, work, wait time.Duration) {
	if callerRan <= 0 || callerRan >= n {
		return
	}
	load.regions.Add(1)
	saved := work / time.Duration(callerRan) * time.Duration(n-callerRan)
	if wait > saved && wait > lateHandoff {
		noteLate()
	} else {
		notePrompt()
	}
}

// Polling time off the core: the polls of at least minSpinSample are added up
// until they reach spinSample, and a sample whose threads were off their core
// for more than 1/offShare of it counts as a late hand-off, one that was not as
// a prompt one.
const (
	minSpinSample = 20 * time.Microsecond
	spinSample    = 2 * time.Millisecond
	offShare      = 8
)

// spinTime adds up the polling of the idle workers (spinSample at a time): its
// length and the part of it their threads spent off their core.
var spinTime struct {
	wall, off atomic.Int64
}

// noteSpin records a worker's polling that lasted wall, from a thread tid that
// had used cpu ns of processor time when it began (clock false: not measured).
// A polling thread on a core of its own uses processor time all along, including
// when the runtime runs other goroutines on it between polls; a thread that the
// operating system took off its core for another thread does not: the core was
// busy with more threads than it has, and polling there takes processor time
// from the caller's thread or the worker's own region. The thread is read again
// at the end, and a poll that the runtime moved to another thread is left out.
// It returns the time off the core, and measured false when it was not measured
// (a poll shorter than minSpinSample is not).
func noteSpin(clock bool, tid int, cpu int64, wall time.Duration) (off time.Duration, measured bool) {
	if !clock || wall < minSpinSample {
		return 0, false
	}
	tid1, cpu1, ok := threadClock()
	if !ok || tid1 != tid {
		return 0, false
	}
	off = max(wall-time.Duration(cpu1-cpu), 0)
	noteOffCore(wall, off)
	return off, true
}

// noteOffCore adds a poll of length wall, off its core for off, to spinTime, and
// judges the sample once it is spinSample long.
func noteOffCore(wall, off time.Duration) {
	spinTime.off.Add(int64(off))
	if spinTime.wall.Add(int64(wall)) < int64(spinSample) {
		return
	}
	w, o := spinTime.wall.Swap(0), spinTime.off.Swap(0)
	if o*offShare > w {
		noteLate()
	} else {
		notePrompt()
	}
}

// notePrompt records a hand-off or region that paid.
func notePrompt() {
	if load.score.Load() > 0 {
		load.score.Add(-1)
	}
	if load.prompt.Add(1) >= promptReset {
		load.prompt.Store(0)
		load.backoff.Store(0)
	}
}

// noteLate records a late hand-off or a region that the helpers made slower, and
// starts a back-off when they come often.
func noteLate() {
	load.prompt.Store(0)
	if load.score.Add(lateWeight) < lateTrigger {
		return
	}
	load.score.Store(0)
	b := time.Duration(load.backoff.Load())
	if b == 0 {
		b = minBackoff
	}
	load.until.Store(nanotime() + int64(b))
	load.backoff.Store(int64(min(2*b, maxBackoff)))
	load.entered.Add(1)
}

// Helpers returns how many goroutines to start beside the calling one for a
// region that could use n more: n, or 0 while the pool backs off because the
// machine's cores are busy (see the comment at the top of this file). The
// region's chunks must not depend on it: a region run on the calling goroutine
// alone computes the same chunks in turn. Parallel drivers of their own (the
// GEMM's shared-packing scheme) call it before starting workers with Go.
func Helpers(n int) int {
	if n <= 0 || backedOff() {
		return 0
	}
	return n
}

// setMode forces the back-off on (modeAlways) or off (modeNever), or makes it
// adaptive again, and returns the function that restores the mode before.
func setMode(m int32) (restore func()) {
	old := load.mode.Swap(m)
	return func() { load.mode.Store(old) }
}

// SetBackoff forces the back-off on (true: every region runs on the calling
// goroutine, idle workers park at once) for tests of the code that uses the
// pool, and returns the function that restores the mode before.
func SetBackoff(on bool) (restore func()) {
	if on {
		return setMode(modeAlways)
	}
	return setMode(modeNever)
}
