package vmath

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// idleCount returns the number of idle workers of goPooled's pool.
func idleCount() int {
	idleWorkers.Lock()
	defer idleWorkers.Unlock()
	return len(idleWorkers.list)
}

// waitIdle waits until goPooled's pool has at least n idle workers.
func waitIdle(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return idleCount() >= n }, 10*time.Second, time.Millisecond)
}

// TestGoRunsEveryFunction checks that goPooled calls every function it is given once,
// many at a time and back to back.
func TestGoRunsEveryFunction(t *testing.T) {
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range 1000 {
		wg.Add(1)
		goPooled(func() {
			defer wg.Done()
			calls.Add(1)
		})
	}
	wg.Wait()
	require.Equal(t, int64(1000), calls.Load())
}

// TestGoReusesIdleWorker checks that a function handed to goPooled while a worker is
// idle runs on that worker, without a new goroutine, and that at most GOMAXPROCS
// idle workers are kept.
func TestGoReusesIdleWorker(t *testing.T) {
	done := make(chan struct{})
	goPooled(func() { done <- struct{}{} })
	<-done
	waitIdle(t, 1)
	idle, goroutines := idleCount(), runtime.NumGoroutine()
	goPooled(func() { done <- struct{}{} })
	require.Equal(t, idle-1, idleCount(), "an idle worker was taken")
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "no goroutine was started")
	<-done

	// Many workers at once: those beyond GOMAXPROCS end when they are done.
	n := runtime.GOMAXPROCS(0) + 3
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		goPooled(func() {
			defer wg.Done()
			<-release
		})
	}
	close(release)
	wg.Wait()
	waitIdle(t, runtime.GOMAXPROCS(0))
	require.Equal(t, runtime.GOMAXPROCS(0), idleCount())
}

// TestSpin checks that Spin reports a condition that holds or comes to hold
// within its wait, and gives up on one that does not after about spinWait (the
// pool not backing off, whatever the load of the machine running the test).
func TestSpin(t *testing.T) {
	defer SetBackoff(false)()
	require.True(t, Spin(func() bool { return true }))
	// Past the 64 polls without yielding, before spinWait: ready() is polled
	// before the wait is checked, so a goroutine held off its core still sees it.
	soon := time.Now().Add(spinWait / 10)
	require.True(t, Spin(func() bool { return time.Now().After(soon) }))
	start := time.Now()
	require.False(t, Spin(func() bool { return false }))
	require.GreaterOrEqual(t, time.Since(start), spinWait)
}

// resetLoad clears the back-off state, restoring it when the test ends, once
// the workers of earlier tests have stopped polling (they measure nothing more
// until they are handed a function).
func resetLoad(t *testing.T) {
	t.Helper()
	time.Sleep(3 * workerSpin)
	restore := setMode(modeAdaptive)
	clear := func() {
		spinTime.wall.Store(0)
		spinTime.off.Store(0)
		load.score.Store(0)
		load.prompt.Store(0)
		load.backoff.Store(0)
		load.until.Store(0)
	}
	clear()
	t.Cleanup(func() {
		clear()
		restore()
	})
}

// TestBackoffPolicy checks the back-off's decisions: two late hand-offs close
// together start a back-off of minBackoff, whose length doubles each time late
// hand-offs come again, up to maxBackoff; scattered late hand-offs among prompt
// ones start none; promptReset prompt hand-offs in a row make the next back-off
// minBackoff again.
func TestBackoffPolicy(t *testing.T) {
	resetLoad(t)
	late, prompt := 10*lateHandoff, lateHandoff/10
	require.False(t, backedOff())
	require.Equal(t, 1, Helpers(1))

	// One late hand-off in lateWeight: no back-off.
	for range 100 {
		noteHandoff(late)
		for range lateWeight {
			noteHandoff(prompt)
		}
	}
	require.False(t, backedOff(), "a late hand-off in %d", lateWeight+1)

	entered := load.entered.Load()
	noteHandoff(late)
	noteHandoff(late)
	require.True(t, backedOff())
	require.Equal(t, entered+1, load.entered.Load())
	require.Equal(t, 0, Helpers(3), "regions on the caller alone while backing off")
	until := load.until.Load()
	require.InDelta(t, float64(nanotime()+int64(minBackoff)), float64(until), float64(minBackoff)/2)

	// Each time late hand-offs resume, the back-off doubles, up to maxBackoff.
	want := 2 * minBackoff
	for range 12 {
		load.until.Store(0) // the back-off has ended
		require.False(t, backedOff())
		start := nanotime()
		noteHandoff(late)
		noteHandoff(late)
		require.True(t, backedOff())
		got := time.Duration(load.until.Load() - start)
		require.GreaterOrEqual(t, got, want)
		require.Less(t, got, want+minBackoff)
		want = min(2*want, maxBackoff)
	}

	// promptReset prompt hand-offs in a row: the next back-off is minBackoff.
	load.until.Store(0)
	for range promptReset {
		noteHandoff(prompt)
	}
	start := nanotime()
	noteHandoff(late)
	noteHandoff(late)
	require.Less(t, time.Duration(load.until.Load()-start), 2*minBackoff)
}

// TestBackoffResults checks that regions give the same results backing off (on
// the calling goroutine alone, or with helpers started after deferSpawn) as
// not, that no worker is started for a short region then and one is for a long
// region, that an idle worker parks at once instead of polling, and that the
// pool works as before once the back-off ends.
func TestBackoffResults(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	resetLoad(t)
	in := make([]float64, 1<<16)
	for i := range in {
		in[i] = float64(i%977) * 0.37
	}
	region := func() ([]float64, []float64, float64) {
		out := make([]float64, len(in))
		ParallelFor(len(in), 1<<10, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = in[i]*in[i] + 1/(1+in[i])
			}
		})
		sums := make([]float64, 64)
		require.Nil(t, Each(len(sums), 4, func(c int) { sums[c] = Sum(in[c<<10 : (c+1)<<10]) }))
		owned := make([]float64, 64)
		require.Nil(t, EachOwned(len(owned), 4, func(c int) { owned[c] = Sum(out[c<<10 : (c+1)<<10]) }))
		return out, sums, Sum(owned)
	}
	wantOut, wantSums, wantTotal := region()

	var spawned atomic.Int64
	countSpawns := func() (restore func()) {
		old := spawn
		spawn = func(f func()) {
			spawned.Add(1)
			old(f)
		}
		return func() { spawn = old }
	}
	restoreSpawn := countSpawns()
	restoreMode := SetBackoff(true)
	for range 5 {
		out, sums, total := region()
		require.Equal(t, wantOut, out)
		require.Equal(t, wantSums, sums)
		require.Equal(t, math.Float64bits(wantTotal), math.Float64bits(total))
	}
	// A short region stays on the caller; one that lasts deferSpawn with
	// indices left starts its helpers then, and they take some.
	spawned.Store(0)
	for range 100 {
		require.Nil(t, Each(8, 4, func(int) {}))
	}
	// (A region of 8 empty calls lasts a microsecond; only one during which the
	// operating system took the caller off its core for deferSpawn starts one.)
	require.Less(t, spawned.Load(), int64(10), "workers started for short regions while backing off")
	caller := goid()
	var helped atomic.Int32
	require.Nil(t, Each(64, 2, func(int) {
		if goid() != caller {
			helped.Add(1)
		}
		time.Sleep(20 * time.Microsecond)
	}))
	require.Equal(t, int64(1), spawned.Load(), "the helper of a long region, started late")
	require.Eventually(t, func() bool { return idleCount() >= 1 }, 10*time.Second, time.Millisecond)
	t.Logf("the late helper ran %d of 64 indices", helped.Load())

	// An idle worker parks at once: it is handed a function after a while and
	// takes it from its channel, not while polling (no hand-off is measured).
	goPooled(func() {})
	waitIdle(t, 1)
	time.Sleep(time.Millisecond)
	before := load.handoffs.Load()
	done := make(chan struct{})
	goPooled(func() { close(done) })
	<-done
	require.Equal(t, before, load.handoffs.Load(), "a parked worker measures no hand-off")
	restoreMode()

	// Not backing off: workers are started again and every one runs.
	defer SetBackoff(false)()
	for range 5 {
		out, sums, total := region()
		require.Equal(t, wantOut, out)
		require.Equal(t, wantSums, sums)
		require.Equal(t, math.Float64bits(wantTotal), math.Float64bits(total))
	}
	restoreSpawn()
	require.Positive(t, spawned.Load())
	// No worker is left stuck: they all come back to the pool, which keeps at most
	// GOMAXPROCS of them.
	waitIdle(t, 1)
	require.LessOrEqual(t, idleCount(), runtime.GOMAXPROCS(0))
}

// TestSpinBackedOff checks that Spin, while the pool backs off, gives up on a
// condition that does not hold at once well before spinWait, and still reports
// one that holds.
func TestSpinBackedOff(t *testing.T) {
	defer SetBackoff(true)()
	require.True(t, Spin(func() bool { return true }))
	polls := 0
	start := time.Now()
	require.False(t, Spin(func() bool { polls++; return false }))
	require.Less(t, time.Since(start), spinWait)
	require.Equal(t, 65, polls, "the first polls and one more")
}

// TestBackoffRegionsAndPolling checks the pool's two other measures: a region
// whose calling goroutine waited for its helpers' indices longer than running them
// itself would have taken counts as a late hand-off, one that waited less as a
// prompt one, one whose helpers ran no index as neither; and polling whose
// threads were off their core for more than an eighth of a sample counts as a
// late hand-off, polling on a core of its own as a prompt one.
func TestBackoffRegionsAndPolling(t *testing.T) {
	resetLoad(t)
	us := time.Microsecond

	// 8 indices, 6 on the caller in 600 us: the helpers' 2 would have taken 200 us.
	noteRegion(8, 6, 600*us, 150*us)
	require.Zero(t, load.score.Load())
	require.Equal(t, int32(1), load.prompt.Load())
	noteRegion(8, 8, 800*us, 10*time.Millisecond) // the helpers ran nothing
	require.Zero(t, load.score.Load())
	require.Equal(t, int32(1), load.prompt.Load())
	noteRegion(8, 6, 600*us, 40*us) // shorter than lateHandoff
	require.Equal(t, int32(2), load.prompt.Load())
	noteRegion(8, 6, 600*us, 300*us) // waited longer than the work saved
	require.Equal(t, int32(lateWeight), load.score.Load())
	noteRegion(8, 7, 700*us, time.Millisecond)
	require.True(t, backedOff(), "two slow regions in a row")

	resetLoad(t)
	// On its own core: 2 ms of polling, 2% off (runtime work counts as on).
	for range 10 {
		noteOffCore(200*us, 4*us)
	}
	require.Zero(t, load.score.Load())
	require.Equal(t, int32(1), load.prompt.Load())
	// Sharing a core with another thread: a third of the polling off the core.
	for range 10 {
		noteOffCore(200*us, 70*us)
	}
	require.Equal(t, int32(lateWeight), load.score.Load())
	for range 10 {
		noteOffCore(200*us, 70*us)
	}
	require.True(t, backedOff())

	// A real worker's polling: measured on its own thread, never more off its
	// core than it polled.
	tid, cpu, ok := threadClock()
	if !ok {
		t.Skip("no thread clock on this system")
	}
	for start := time.Now(); time.Since(start) < time.Millisecond; {
	}
	tid1, cpu1, _ := threadClock()
	if tid1 == tid {
		require.Greater(t, cpu1, cpu, "the thread's processor time grows while it runs")
	}
}
