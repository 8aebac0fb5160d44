package vmath

import (
	"runtime"
	"sync"
	"time"
)

// workerSpin is how long a worker goroutine that has finished its function waits
// for the next one before it parks. A parked goroutine is woken by the runtime,
// which, when its thread sleeps too, wakes that thread: on the project's 2-core
// virtual machine that took tens of microseconds, a large share of a parallel
// region of a few hundred (an MLP's 256x256 products, its bias adds and
// activations: many short regions back to back, the second goroutine otherwise
// waking up late for each). A waiting worker yields the processor at every turn
// (runtime.Gosched), so any other goroutine runs first: it only keeps the thread
// awake. OpenMP's runtimes do the same (GOMP_SPINCOUNT, KMP_BLOCKTIME: 200 ms in
// Intel's); 200 us is enough to bridge the serial parts between two regions and
// costs at most that much CPU time after the last one. On a machine whose cores
// are busy with other processes the polling costs more than it saves, and the
// pool backs off (load.go): workers park at once and regions run on the calling
// goroutine, until a probe finds the hand-offs prompt again.
const workerSpin = 200 * time.Microsecond

// worker is a goroutine of the pool of goPooled: idle, it waits for a function on task.
type worker struct {
	task chan func()
	sent int64 // nanotime of the hand-off of the function on task
}

// idleWorkers holds the workers waiting for a function, most recently idle last
// (those are the ones still spinning).
var idleWorkers struct {
	sync.Mutex
	list []*worker
}

// goPooled calls f on a goroutine of its own, as the go statement does, but reuses a
// goroutine that finished its last function less than workerSpin ago and is still
// waiting for another without having parked, so that a parallel region started
// right after another one does not wait for the runtime to wake a sleeping thread.
// At most GOMAXPROCS idle goroutines are kept; the others end. f must not let a
// panic escape (the callers in this module recover and re-raise it on the calling
// goroutine): it would crash the program, as it would with a go statement.
func goPooled(f func()) {
	idleWorkers.Lock()
	if n := len(idleWorkers.list); n > 0 {
		w := idleWorkers.list[n-1]
		idleWorkers.list = idleWorkers.list[:n-1]
		idleWorkers.Unlock()
		w.sent = nanotime() // read by w after it receives f
		w.task <- f         // never blocks: an idle worker's channel is empty
		return
	}
	idleWorkers.Unlock()
	w := &worker{task: make(chan func(), 1)}
	go w.loop(f)
}

// loop runs f, then the functions goPooled hands this worker, until more than GOMAXPROCS
// workers are idle.
func (w *worker) loop(f func()) {
	for {
		f()
		idleWorkers.Lock()
		if len(idleWorkers.list) >= runtime.GOMAXPROCS(0) {
			idleWorkers.Unlock()
			return
		}
		idleWorkers.list = append(idleWorkers.list, w)
		idleWorkers.Unlock()
		f = w.wait()
	}
}

// wait returns the next function handed to the worker: it polls for workerSpin,
// yielding the processor between polls, then parks; while the pool backs off (see
// load.go) it parks at once, and it stops polling when a back-off begins. It
// records how long a function handed to it while it polled took to reach it
// (noteHandoff), and how much of its polling its thread spent off its core
// (noteSpin): the pool's measures of whether polling pays.
func (w *worker) wait() func() {
	start := nanotime()
	if backedOffAt(start) {
		return <-w.task
	}
	tid, cpu, clock := threadClock()
	for {
		select {
		case f := <-w.task:
			now := nanotime()
			wall, d := time.Duration(now-start), time.Duration(now-w.sent)
			off, measured := noteSpin(clock, tid, cpu, wall)
			if measured && d <= wall && off < lateHandoff {
				// On its core all along: the runtime ran other work on the
				// thread between polls (a garbage collector's worker), which
				// says nothing of the machine's other processes.
				d = min(d, lateHandoff)
			}
			noteHandoff(d)
			return f
		default:
		}
		if now := nanotime(); now-start > int64(workerSpin) || backedOffAt(now) {
			noteSpin(clock, tid, cpu, time.Duration(now-start))
			return <-w.task
		}
		runtime.Gosched()
	}
}

// spinWait is how long Spin waits by default: about a compute unit of a GEMM's
// parallel driver or a chunk of a parallel loop, the waits that end soonest.
const spinWait = 100 * time.Microsecond

// Spin reports whether ready() holds within about 100 us, polling it and
// yielding the processor between polls (runtime.Gosched) after the first few.
// A goroutine that waits for another to finish a short piece of work spins
// before it parks (on a sync.Cond or a WaitGroup), because the runtime takes tens
// of microseconds to wake a parked goroutine whose thread went to sleep too: the
// GEMM's parallel driver lost about 50 us to each such wait on the project's
// 2-core virtual machine.
//
// While the pool backs off because the machine's cores are busy (see load.go),
// Spin gives up after the first polls: a goroutine that polls then only takes
// processor time from the one it waits for.
func Spin(ready func() bool) bool {
	for range 64 {
		if ready() {
			return true
		}
	}
	start := nanotime()
	if backedOffAt(start) {
		return ready()
	}
	for {
		if ready() {
			return true
		}
		if nanotime()-start > int64(spinWait) {
			return false
		}
		runtime.Gosched()
	}
}
