package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// parallelShapes are above parallelMin and cross the parallel blocking: several
// KC blocks, an NC block boundary, several row blocks (parallelRows), edges that
// are not multiples of MR, NR or the unit sizes.
var parallelShapes = [][3]int{
	{300, 290, 600}, {41, 3100, 20}, {1601, 40, 41}, {129, 131, 257}, {8, 2000, 300},
}

// bothSchemes runs f with the slab split (the default) and with shared packing.
func bothSchemes(t *testing.T, f func(t *testing.T)) {
	saved := sharedPacking
	defer func() { sharedPacking = saved }()
	for _, shared := range []bool{false, true} {
		sharedPacking = shared
		t.Run(fmt.Sprintf("shared=%v", shared), f)
	}
}

// TestParallelBitIdentical checks that Dgemm and Zgemm give the same bits on
// one goroutine (the serial algorithm) and on several, with either scheme (with
// vmath's pool not backing off, whatever the load of the machine running it).
func TestParallelBitIdentical(t *testing.T) {
	defer vmath.SetBackoff(false)()
	bothSchemes(t, testParallelBitIdentical)
}

// TestParallelBackoff checks that while vmath's pool backs off (the products'
// units or slabs all on the calling goroutine, in the same sequence) Dgemm and
// Zgemm still give the serial result bit for bit, with either scheme.
func TestParallelBackoff(t *testing.T) {
	defer vmath.SetBackoff(true)()
	bothSchemes(t, testParallelBitIdentical)
}

func testParallelBitIdentical(t *testing.T) {
	if testing.Short() {
		parallelShapes = parallelShapes[:3]
	}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		for i, s := range parallelShapes {
			m, n, k := s[0], s[1], s[2]
			tA, tB := i%2 == 1, i/2%2 == 1
			pad := i % 3
			ar, ac := dims(tA, m, k)
			br, bc := dims(tB, k, n)
			lda, ldb, ldc := ac+pad, bc+pad, n+pad
			a, b := randSlice(rng, ar*lda), randSlice(rng, br*ldb)
			c0 := randSlice(rng, m*ldc)
			for _, beta := range []float64{0, 0.5} {
				want := append([]float64(nil), c0...)
				DgemmOn(1, tA, tB, m, n, k, 1.25, a, lda, b, ldb, beta, want, ldc)
				for _, w := range []int{2, 3, 7} {
					got := append([]float64(nil), c0...)
					DgemmOn(w, tA, tB, m, n, k, 1.25, a, lda, b, ldb, beta, got, ldc)
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Fatalf("%v tA=%v tB=%v beta=%v workers=%d: c[%d] = %v, serial %v", s, tA, tB, beta, w, j, got[j], want[j])
						}
					}
				}
			}
			if m*n*k > 4e7 {
				continue // keep the complex products (4x the work) short
			}
			za, zb := randCSlice(rng, ar*lda), randCSlice(rng, br*ldb)
			zc := randCSlice(rng, m*ldc)
			want := append([]complex128(nil), zc...)
			ZgemmOn(1, tA, tB, m, n, k, complex(0.5, -1), za, lda, zb, ldb, complex(0.25, 1), want, ldc)
			got := append([]complex128(nil), zc...)
			ZgemmOn(2, tA, tB, m, n, k, complex(0.5, -1), za, lda, zb, ldb, complex(0.25, 1), got, ldc)
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("Zgemm %v: c[%d] = %v, serial %v", s, j, got[j], want[j])
				}
			}
		}
	})
}

// panicB is a right operand whose packing panics from the second block on.
type panicB struct {
	realB[float64]
	calls atomic.Int64
}

var errPack = errors.New("pack failed")

func (x *panicB) pack(dst []float64, nr, j0, nb, p0, kb int) {
	if p0 > 0 {
		x.calls.Add(1)
		panic(errPack)
	}
	x.realB.pack(dst, nr, j0, nb, p0, kb)
}

// TestParallelPanic checks that a panic in a worker comes back to the caller
// as a *WorkerPanic instead of crashing the process, with either scheme.
func TestParallelPanic(t *testing.T) { bothSchemes(t, testParallelPanic) }

func testParallelPanic(t *testing.T) {
	m, n, k := 200, 300, 600
	rng := rand.New(rand.NewPCG(1, 1))
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float64, m*n)
	for range 20 {
		pb := &panicB{realB: realB[float64]{b: b, ldb: n}}
		func() {
			defer func() {
				// A panic on a worker comes back as a *WorkerPanic; one on the
				// calling goroutine (the slab split computes a slab there too)
				// as itself.
				r := recover()
				if r == errPack {
					return
				}
				wp, ok := r.(*WorkerPanic)
				if !ok {
					t.Fatalf("recovered %T %v, want *WorkerPanic or errPack", r, r)
				}
				if !errors.Is(wp, errPack) || len(wp.Stack) == 0 {
					t.Fatalf("WorkerPanic %v, want value errPack and a stack", wp.Value)
				}
			}()
			run(kern, 4, m, n, k, &realA[float64]{a: a, lda: k}, pb, 1, 0, c, n)
		}()
		if pb.calls.Load() == 0 {
			t.Fatal("the panicking packer was not called")
		}
	}
}

// TestForEachPanic checks that a panic in f comes back to the caller, after
// every goroutine has stopped, and stops the handing out of indices.
func TestForEachPanic(t *testing.T) {
	for range 20 {
		var running, calls atomic.Int64
		func() {
			defer func() {
				r := recover()
				if wp, ok := r.(*WorkerPanic); ok {
					r = wp.Value
				}
				if r != "boom" {
					t.Fatalf("recovered %v, want boom", r)
				}
				if running.Load() != 0 {
					t.Fatal("ForEach returned with f still running")
				}
				if calls.Load() >= 1000 {
					t.Fatal("ForEach kept going after a panic")
				}
			}()
			ForEach(1000, 4, func(i int) {
				running.Add(1)
				defer running.Add(-1)
				calls.Add(1)
				if i == 5 {
					panic("boom")
				}
				for range 1000 {
					_ = fmt.Sprint(i)
				}
			})
		}()
	}
}

// TestParallelManyBlocks runs the parallel driver with kernels whose block
// sizes are shrunk, so that products of moderate size have many blocks: several
// NC column blocks, row blocks (m > parallelRows), more KC blocks than shared
// buffers, so that every dependency of the unit sequence is exercised. The
// result must be correct and bit-identical to the serial one.
func TestParallelManyBlocks(t *testing.T) { bothSchemes(t, testParallelManyBlocks) }

func testParallelManyBlocks(t *testing.T) {
	saved := kern
	defer func() { kern = saved }()
	for _, kn := range kernels() {
		small := *kn
		small.mc, small.kc, small.nc = 2*kn.mr, 16, 2*kn.nr
		kern = &small
		t.Run(kn.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			checkDgemm(t, rng, dcase{false, true, 150, 100, 150, 1, 0.5, 0.25})
			for i, s := range [][3]int{{1100, 70, 60}, {200, 150, 130}} {
				m, n, k := s[0], s[1], s[2]
				tA, tB := i == 1, i == 0
				ar, ac := dims(tA, m, k)
				br, bc := dims(tB, k, n)
				a, b, c0 := randSlice(rng, ar*ac), randSlice(rng, br*bc), randSlice(rng, m*n)
				want := append([]float64(nil), c0...)
				DgemmOn(1, tA, tB, m, n, k, 1, a, ac, b, bc, 0.5, want, n)
				for _, w := range []int{2, 3} {
					got := append([]float64(nil), c0...)
					DgemmOn(w, tA, tB, m, n, k, 1, a, ac, b, bc, 0.5, got, n)
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Fatalf("%v workers=%d: c[%d] = %v, serial %v", s, w, j, got[j], want[j])
						}
					}
				}
			}
		})
	}
}

// TestSlabCount checks that the slab split gives every goroutine the same number
// of slabs (none idle while another computes a last slab on idle cores), two each
// only when slabs stay about parallelSlab wide.
func TestSlabCount(t *testing.T) {
	for _, c := range []struct{ workers, size, want int }{
		{2, 256, 2}, {2, 512, 2}, {2, 784, 4}, {2, 1000, 4}, {2, 1024, 4}, {2, 4096, 4},
		{3, 768, 3}, {3, 784, 6}, {4, 1024, 4}, {4, 1100, 8}, {1, 100, 1},
	} {
		got := slabCount(c.workers, c.size)
		if got != c.want || got%c.workers != 0 {
			t.Errorf("slabCount(%d, %d) = %d, want %d", c.workers, c.size, got, c.want)
		}
	}
}

// TestUnitRows checks the height of the shared scheme's compute units: whole
// tiles of mr rows, at most the default height, as equal as tiles allow, and a
// multiple of workers units per block.
func TestUnitRows(t *testing.T) {
	for _, c := range []struct{ mb, colUnits, maxRows, mr, workers, want int }{
		{256, 3, 96, 8, 2, 64},   // float64 MLP 256 x 256: 4 x 3 units, was 3 x 3
		{256, 3, 192, 8, 2, 128}, // float32 (MC 384): 2 x 3 units of 128, was 192 + 64
		{784, 3, 96, 8, 2, 80},   // 10 x 3 units (80 rows, the last 64), was 9 x 3 (the last 16)
		{256, 3, 96, 8, 3, 88},   // 9 units on 3 goroutines, rows 88, 88, 80
		{256, 1, 96, 8, 4, 64},   // 4 units on 4 goroutines
		{16, 1, 96, 8, 4, 8},     // two tiles: no more units than tiles
		{300, 4, 96, 8, 2, 80},
	} {
		got := unitRows(c.mb, c.colUnits, c.maxRows, c.mr, c.workers)
		if got != c.want {
			t.Errorf("unitRows%v = %d, want %d", c, got, c.want)
		}
		units := ceilDiv(c.mb, got) * c.colUnits
		if got%c.mr != 0 || got > c.maxRows || (units%c.workers != 0 && got > c.mr) {
			t.Errorf("unitRows%v = %d: %d units", c, got, units)
		}
	}
}

// TestForEachLateWorker checks that ForEach returns once every index is done,
// without waiting for a goroutine that has not started yet (as one on a core busy
// with another process): the workers here start only after ForEach has returned.
func TestForEachLateWorker(t *testing.T) {
	release := make(chan struct{})
	var late sync.WaitGroup
	defer vmath.SetSpawn(func(f func()) {
		late.Add(1)
		go func() {
			defer late.Done()
			<-release
			f()
		}()
	})()
	returned := make(chan []int32)
	go func() {
		hits := make([]int32, 100)
		ForEach(len(hits), 4, func(i int) { atomic.AddInt32(&hits[i], 1) })
		returned <- hits
	}()
	select {
	case hits := <-returned:
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("index %d called %d times", i, h)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ForEach waited for a worker goroutine that had not started")
	}
	close(release)
	late.Wait()
}

// TestSharedLateWorker checks that the shared-packing scheme returns the serial
// result bit for bit without waiting for a goroutine that has not started yet
// (as one on a core busy with another process): the workers here start only
// after the product has returned, find no unit left and end.
func TestSharedLateWorker(t *testing.T) {
	saved := sharedPacking
	defer func() { sharedPacking = saved }()
	sharedPacking = true
	release := make(chan struct{})
	var late sync.WaitGroup
	defer vmath.SetSpawn(func(f func()) {
		late.Add(1)
		go func() {
			defer late.Done()
			<-release
			f()
		}()
	})()
	rng := rand.New(rand.NewPCG(3, 4))
	m, n, k := 300, 290, 600
	a, b, c0 := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)
	want := append([]float64(nil), c0...)
	DgemmOn(1, false, false, m, n, k, 1.25, a, k, b, n, 0.5, want, n)
	returned := make(chan []float64)
	go func() {
		got := append([]float64(nil), c0...)
		DgemmOn(2, false, false, m, n, k, 1.25, a, k, b, n, 0.5, got, n)
		returned <- got
	}()
	select {
	case got := <-returned:
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("c[%d] = %v, serial %v", j, got[j], want[j])
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shared scheme waited for a worker goroutine that had not started")
	}
	close(release)
	late.Wait()
}
