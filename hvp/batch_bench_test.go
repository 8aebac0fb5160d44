package hvp_test

import (
	"fmt"
	"testing"

	"github.com/chainrules-go/chainrules/hvp"
)

// BenchmarkBatch measures a batch of k = 8 Hessian-vector products of BenchmarkMLP's
// MLP (batch 256, widths 784-256-256-10) on 1 and 2 workers:
//
//	go test -run '^$' -bench Batch -count 5 -cpu 2 ./hvp/
//
// "apply" reuses one Operator, whose second worker's recording is made by an untimed
// first batch (the steady state of repeated batches at one point); "record+apply"
// makes a new Operator at every iteration, and so includes recording f once on the
// calling goroutine and once more on the second worker. Both run one untimed batch
// first: the first batch of a process is slower, as its heap grows.
func BenchmarkBatch(b *testing.B) {
	X, Y, p := mlpProblem(1, 256, []int{784, 256, 256, 10})
	f := mlpLoss(X, Y)
	const k = 8
	vs := batchDirs(3, k, p)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("k=%d/workers=%d/apply", k, workers), func(b *testing.B) {
			op, err := hvp.NewOperator(f, p)
			if err != nil {
				b.Fatal(err)
			}
			op.Workers = workers
			if _, err := op.ApplyBatch(vs); err != nil { // the workers' recordings, a warm heap
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := op.ApplyBatch(vs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("k=%d/workers=%d/record+apply", k, workers), func(b *testing.B) {
			batch := func() {
				op, err := hvp.WithWorkers(workers).NewOperator(f, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := op.ApplyBatch(vs); err != nil {
					b.Fatal(err)
				}
			}
			batch() // a warm heap
			b.ReportAllocs()
			for b.Loop() {
				batch()
			}
		})
	}
}
