package main

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/chainrules-go/chainrules/examples/internal/plots"
)

// grid is an n x n field on the cells of the unit square, row-major in (y, x), as
// gonum's GridXYZ.
type grid struct {
	n int
	v []float64
}

func (g grid) Dims() (c, r int)   { return g.n, g.n }
func (g grid) Z(c, r int) float64 { return g.v[r*g.n+c] }
func (g grid) X(c int) float64    { return (float64(c) + 0.5) / float64(g.n) }
func (g grid) Y(r int) float64    { return (float64(r) + 0.5) / float64(g.n) }

// heatmap writes a heat map of the n x n field v, with a colour bar, to path.
func heatmap(path, title string, n int, v []float64) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, z := range v {
		lo, hi = math.Min(lo, z), math.Max(hi, z)
	}
	if lo == hi {
		hi = lo + 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(lo)
	pal.SetMax(hi)
	colors := pal.Palette(255)
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "x", "y"
	hm := plotter.NewHeatMap(grid{n: n, v: v}, colors)
	hm.Min, hm.Max = lo, hi
	p.Add(hm)
	bar := &plotter.ColorBar{ColorMap: pal, Vertical: true}
	legend := plot.New()
	legend.Title.Text = fmt.Sprintf("[%.2g, %.2g]", lo, hi)
	legend.HideX()
	legend.Y.Padding = 0
	legend.Add(bar)
	return plots.SavePNG(path, 7*vg.Inch, 5.6*vg.Inch, func(dc draw.Canvas) {
		left, right := dc, dc
		left.Max.X = dc.Min.X + 0.85*(dc.Max.X-dc.Min.X)
		right.Min.X = left.Max.X
		p.Draw(left)
		legend.Draw(right)
	})
}
