package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The kmeans eval: the cost of centroids C (k x d) for points P (n x d),
//
//	cost(C) = sum_i min_j |P_i - C_j|²,
//
// with the squared distances as |P_i|² + |C_j|² - 2 P_i·C_j (one matrix
// product), and dir = J / diag(H), the Newton step of the diagonal Hessian.
// The Hessian of the cost is diagonal, so H applied to the ones is that
// diagonal: J and H·1 come from one forward-over-reverse hvp.HVP.
func init() {
	modules["kmeans"] = map[string]prepare{
		"cost": kmeansJob(false),
		"dir":  kmeansJob(true),
	}
}

type kmeansInput struct {
	runs
	Points    [][]float64 `json:"points"`
	Centroids [][]float64 `json:"centroids"`
}

// kmeansCost returns the cost as a function of the k centroids for the points p.
func kmeansCost(p *tensor.Dense, k int) hvp.Func {
	return func(t *hvp.Tape, c []cr.NodeID) cr.NodeID {
		pts := t.Constant(p)
		p2 := t.Apply(reduce.SumOp([]int{1}, true), t.Apply(elementwise.SquareOp, pts))
		c2 := t.Apply(permute.ReshapeOp(1, k), t.Apply(reduce.SumOp([]int{1}, false), t.Apply(elementwise.SquareOp, c[0])))
		pc := t.Apply(nn.MatmulOp, pts, t.Apply(permute.TransposeOp(0, 1), c[0]))
		dist := t.Apply(elementwise.SubOp, t.Apply(elementwise.AddOp, p2, c2), t.Apply(elementwise.ScaleOp(2), pc))
		return t.Apply(reduce.SumOp(nil, false), t.Apply(reduce.MinOp([]int{1}, false), dist))
	}
}

func kmeansJob(dir bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in kmeansInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if len(in.Points) == 0 || len(in.Centroids) == 0 {
			return job{}, fmt.Errorf("%d points and %d centroids, want at least one of each", len(in.Points), len(in.Centroids))
		}
		d := len(in.Points[0])
		p, err := matrix("points", in.Points, d)
		if err != nil {
			return job{}, err
		}
		c, err := matrix("centroids", in.Centroids, d)
		if err != nil {
			return job{}, err
		}
		f := kmeansCost(p, len(in.Centroids))
		x := []*tensor.Dense{c}
		ones := []*tensor.Dense{tensor.Ones(tensor.Float64, len(in.Centroids), d)}
		return job{runs: in.runs, run: func() (any, error) {
			if !dir {
				y, err := primal(f, x)
				if err != nil {
					return nil, err
				}
				return scalarOf(y)
			}
			g, h, err := hvp.HVP(f, x, ones)
			if err != nil {
				return nil, err
			}
			step, err := elementwise.Div(g[0], h[0])
			if err != nil {
				return nil, err
			}
			return rows(step), nil
		}}, nil
	}
}
