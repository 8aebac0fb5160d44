package optim_test

import (
	"errors"
	"slices"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/tensor"
)

// dataset returns x [n, 2, 3] with x[i] all i + k/10 and y [n] = 100 i.
func dataset(t *testing.T, n int) (x, y *tensor.Dense) {
	t.Helper()
	xs, ys := make([]float64, 6*n), make([]float64, n)
	for i := range n {
		for k := range 6 {
			xs[6*i+k] = float64(i) + float64(k)/10
		}
		ys[i] = 100 * float64(i)
	}
	x, err := tensor.FromFloat64(xs, n, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	y, err = tensor.FromFloat64(ys, n)
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// epoch runs one epoch and returns the sample indices in order, checking that each
// batch holds the rows of its indices.
func epoch(t *testing.T, it *optim.Batches) (order []int, sizes []int) {
	t.Helper()
	for it.Next() {
		x, y := it.Batch()
		idx := it.Indices()
		if x.Shape()[0] != len(idx) || y.Shape()[0] != len(idx) || !slices.Equal(x.Shape()[1:], []int{2, 3}) {
			t.Fatalf("batch shapes %v, %v for %d indices", x.Shape(), y.Shape(), len(idx))
		}
		xs, ys := x.Float64s(), y.Float64s()
		for r, i := range idx {
			for k := range 6 {
				if xs[6*r+k] != float64(i)+float64(k)/10 {
					t.Fatalf("row %d of the batch is not sample %d: %v", r, i, xs[6*r:6*r+6])
				}
			}
			if ys[r] != 100*float64(i) {
				t.Fatalf("target %d of the batch is %v, want %v", r, ys[r], 100*float64(i))
			}
		}
		order = append(order, idx...)
		sizes = append(sizes, len(idx))
	}
	return order, sizes
}

func TestBatches(t *testing.T) {
	x, y := dataset(t, 10)
	cases := []struct {
		name      string
		cfg       optim.BatchConfig
		sizes     []int
		permuted  bool
		wantEpoch int
	}{
		{"in order", optim.BatchConfig{BatchSize: 4}, []int{4, 4, 2}, false, 3},
		{"drop last", optim.BatchConfig{BatchSize: 4, DropLast: true}, []int{4, 4}, false, 2},
		{"exact", optim.BatchConfig{BatchSize: 5, DropLast: true}, []int{5, 5}, false, 2},
		{"larger than the set", optim.BatchConfig{BatchSize: 32}, []int{10}, false, 1},
		{"shuffled", optim.BatchConfig{BatchSize: 3, Shuffle: true, Seed: 7}, []int{3, 3, 3, 1}, true, 4},
		{"shuffled drop last", optim.BatchConfig{BatchSize: 3, Shuffle: true, Seed: 7, DropLast: true}, []int{3, 3, 3}, true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it, err := optim.NewBatches(x, y, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if it.Len() != c.wantEpoch {
				t.Errorf("Len %d, want %d", it.Len(), c.wantEpoch)
			}
			var orders [][]int
			for e := range 3 {
				order, sizes := epoch(t, it)
				if !slices.Equal(sizes, c.sizes) {
					t.Fatalf("epoch %d: batch sizes %v, want %v", e, sizes, c.sizes)
				}
				seen := map[int]bool{}
				for _, i := range order {
					if seen[i] {
						t.Fatalf("epoch %d: sample %d twice", e, i)
					}
					seen[i] = true
				}
				if !c.cfg.DropLast && len(seen) != 10 {
					t.Fatalf("epoch %d: %d samples, want 10", e, len(seen))
				}
				orders = append(orders, order)
			}
			if it.Epoch() != 3 {
				t.Errorf("Epoch %d after 3 epochs", it.Epoch())
			}
			identity := slices.Equal(orders[0], []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}[:len(orders[0])])
			if identity == c.permuted {
				t.Errorf("first epoch order %v: shuffled %v, want %v", orders[0], !identity, c.permuted)
			}
			if c.permuted && slices.Equal(orders[0], orders[1]) {
				t.Errorf("epochs 1 and 2 have the same order %v", orders[0])
			}
			// The same seed gives the same orders.
			again, err := optim.NewBatches(x, y, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for e := range 3 {
				if order, _ := epoch(t, again); !slices.Equal(order, orders[e]) {
					t.Fatalf("epoch %d: order %v on a second run, %v on the first", e, order, orders[e])
				}
			}
		})
	}
}

func TestBatchesWithoutTargets(t *testing.T) {
	x, _ := dataset(t, 3)
	it, err := optim.NewBatches(x, nil, optim.BatchConfig{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		xb, yb := it.Batch()
		if yb != nil || xb == nil {
			t.Fatalf("batch %v, %v", xb, yb)
		}
		n += xb.Shape()[0]
	}
	if n != 3 {
		t.Fatalf("%d samples, want 3", n)
	}
}

func TestBatchesNextAllocatesNothing(t *testing.T) {
	x, y := dataset(t, 50)
	it, err := optim.NewBatches(x, y, optim.BatchConfig{BatchSize: 8, Shuffle: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { it.Next() }); n != 0 {
		t.Errorf("Next allocates %v times", n)
	}
}

func TestBatchesErrors(t *testing.T) {
	x, y := dataset(t, 4)
	short, _ := dataset(t, 3)
	cases := []struct {
		name string
		x, y *tensor.Dense
		cfg  optim.BatchConfig
		want error
	}{
		{"batch size 0", x, y, optim.BatchConfig{}, cr.ErrInvalidArgument},
		{"nil x", nil, y, optim.BatchConfig{BatchSize: 2}, cr.ErrInvalidArgument},
		{"scalar x", tensor.Scalar(1), nil, optim.BatchConfig{BatchSize: 2}, cr.ErrInvalidArgument},
		{"complex x", tensor.New(tensor.Complex128, 4, 2), nil, optim.BatchConfig{BatchSize: 2}, cr.ErrInvalidArgument},
		{"y of another length", x, short, optim.BatchConfig{BatchSize: 2}, cr.ErrShapeMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := optim.NewBatches(c.x, c.y, c.cfg); !errors.Is(err, c.want) {
				t.Fatalf("error %v, want one wrapping %v", err, c.want)
			}
		})
	}
}
