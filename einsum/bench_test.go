package einsum

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// cpuTime returns the CPU time the process has used. The machine the figures come
// from is shared, so besides ns/op (wall clock) the benchmarks report rates per CPU
// second of this process, which other processes' load does not inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// minorFaults returns the process's minor page faults so far (getrusage's
// ru_minflt), or 0 when they cannot be read: pages the kernel maps in without
// I/O, as when a fresh output first touches memory that the runtime had returned
// to the system (see recordtest.ReportFaults, which this package's tests cannot
// import).
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Minflt)
}

// report adds the rates of work units per op (flops, or bytes when bytes is set)
// over the wall-clock and CPU time of the loop that started at cpu0.
func report(b *testing.B, cpu0 time.Duration, work float64, bytes bool) {
	wall := b.Elapsed().Seconds() / float64(b.N)
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	unit := "GFLOP/s"
	if bytes {
		unit = "GB/s"
	}
	b.ReportMetric(work/wall/1e9, unit)
	b.ReportMetric(work/cpu/1e9, unit+"-cpu")
	b.ReportMetric(cpu*1e3, "cpu-ms/op")
}

// The workloads of /work/shared/bench/RESULTS.md.
var benchCases = []struct {
	name   string
	spec   string
	shapes [][]int
	bytes  bool // memory-bound: report GB/s of operand traffic instead of GFLOP/s
}{
	{"matmul512", "ij,jk->ik", [][]int{{512, 512}, {512, 512}}, false},
	{"bmm64x128", "bij,bjk->bik", [][]int{{64, 128, 128}, {64, 128, 128}}, false},
	{"ijk,jkl64", "ijk,jkl->il", [][]int{{64, 64, 64}, {64, 64, 64}}, false},
	{"chain4_256", "ij,jk,kl,lm->im", [][]int{{256, 256}, {256, 256}, {256, 256}, {256, 256}}, false},
	{"tn4_16", "abc,cde,efa,bdf->", [][]int{{16, 16, 16}, {16, 16, 16}, {16, 16, 16}, {16, 16, 16}}, false},
	{"attention", "bhqd,bhkd->bhqk", [][]int{{8, 8, 128, 64}, {8, 8, 128, 64}}, false},
	{"outer_bi,bj", "bi,bj->ij", [][]int{{256, 512}, {256, 512}}, false},
	{"dot_ij,ij", "ij,ij->", [][]int{{1024, 1024}, {1024, 1024}}, true},
	{"gemv_ij,j", "ij,j->i", [][]int{{2048, 2048}, {2048}}, true},
	{"outer_i,j", "i,j->ij", [][]int{{2048}, {2048}}, true},
}

func BenchmarkEval(b *testing.B) { benchEval(b, tensor.Float64) }

// BenchmarkEval32 is BenchmarkEval on float32 operands: the contractions run on
// the float32 GEMM.
func BenchmarkEval32(b *testing.B) { benchEval(b, tensor.Float32) }

func benchEval(b *testing.B, dt tensor.DType) {
	rng := rand.New(rand.NewPCG(1, 1))
	elem := 8
	if dt.IsSingle() {
		elem = 4
	}
	for _, c := range benchCases {
		ops := randOperands(rng, c.shapes, 0)
		for k := range ops {
			ops[k], _ = tensor.AsType(ops[k], dt)
		}
		p, err := NewPlan(c.spec, c.shapes...)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, faults0 := cpuTime(), minorFaults()
			for b.Loop() {
				if _, err := Eval(c.spec, ops...); err != nil {
					b.Fatal(err)
				}
			}
			if c.bytes {
				n := numel(p.OutShape())
				for _, sh := range c.shapes {
					n += numel(sh)
				}
				report(b, cpu0, float64(elem*n), true)
			} else {
				report(b, cpu0, p.Flops(), false)
			}
			b.ReportMetric(float64(minorFaults()-faults0)/float64(b.N), "faults/op")
		})
	}
}

// BenchmarkGEMM times the GEMM calls that the GEMM-shaped specs above reduce to,
// made directly with tensor.GemmBatch, to measure einsum's overhead.
func BenchmarkGEMM(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	cases := []struct {
		name           string
		batch, m, n, k int
		transB         bool
	}{
		{"matmul512", 1, 512, 512, 512, false},
		{"bmm64x128", 64, 128, 128, 128, false},
		{"ijk,jkl64", 1, 64, 64, 4096, false},
		{"attention", 64, 128, 128, 64, true},
	}
	for _, c := range cases {
		a := tensor.RandN(rng, tensor.Float64, c.batch*c.m*c.k).Float64s()
		bb := tensor.RandN(rng, tensor.Float64, c.batch*c.k*c.n).Float64s()
		ldb := c.n
		if c.transB {
			ldb = c.k
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				out := make([]float64, c.batch*c.m*c.n)
				if err := tensor.GemmBatch(false, c.transB, c.m, c.n, c.k, 1, a, c.k, c.m*c.k, bb, ldb, c.k*c.n, 0, out, c.n, c.m*c.n, c.batch); err != nil {
					b.Fatal(err)
				}
			}
			report(b, cpu0, 2*float64(c.batch*c.m*c.n*c.k), false)
		})
	}
}

// BenchmarkGradient times loss = sum(einsum("ij,jk->ik", A, B)^2) at 512, written
// with einsum alone (C = A B, loss = "ij,ij->" of C with itself): forward on a
// tape, and forward plus backward to A and B.
func BenchmarkGradient(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 512
	a := tensor.RandN(rng, tensor.Float64, n, n)
	bm := tensor.RandN(rng, tensor.Float64, n, n)
	record := func() (*core.Tape[*tensor.Dense], cr.NodeID) {
		tape := core.NewTape[*tensor.Dense](tensor.Space{})
		x, y := tape.Leaf(a), tape.Leaf(bm)
		c := tape.Apply(Op("ij,jk->ik"), x, y)
		loss := tape.Apply(Op("ij,ij->"), c, c)
		if err := tape.Err(); err != nil {
			b.Fatal(err)
		}
		return tape, loss
	}
	flops := 2.0 * n * n * n
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			record()
		}
		report(b, cpu0, flops, false)
	})
	// The backward pass costs two more products of the same size: Abar = 2 C B^T and
	// Bbar = 2 A^T C.
	b.Run("forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			tape, loss := record()
			if _, err := tape.Backward(loss); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0, 3*flops, false)
	})
}

// repeatedVectorSpec returns "i,i,...,i->i" for n vectors of length d.
func repeatedVectorSpec(n, d int) (string, [][]int) {
	terms := make([]string, n)
	shapes := make([][]int, n)
	for k := range n {
		terms[k] = "i"
		shapes[k] = []int{d}
	}
	return strings.Join(terms, ",") + "->i", shapes
}

// BenchmarkPlan times NewPlan, which picks the contraction order, for specs with
// many operands (the greedy path).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		spec, shapes := repeatedVectorSpec(n, 8)
		b.Run(fmt.Sprintf("i,i,...,i->i/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewPlan(spec, shapes...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
