package vmath

import (
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
// within its wait, and gives up on one that does not after about spinWait.
func TestSpin(t *testing.T) {
	require.True(t, Spin(func() bool { return true }))
	// Past the 64 polls without yielding, before spinWait: ready() is polled
	// before the wait is checked, so a goroutine held off its core still sees it.
	soon := time.Now().Add(spinWait / 10)
	require.True(t, Spin(func() bool { return time.Now().After(soon) }))
	start := time.Now()
	require.False(t, Spin(func() bool { return false }))
	require.GreaterOrEqual(t, time.Since(start), spinWait)
}
