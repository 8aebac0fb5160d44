// Package plots holds the gonum/plot helpers that the example programs share: a
// log-scale convergence plot with decade ticks, one line style per method, and PNG
// output on a white canvas.
package plots

import (
	"image/color"
	"math"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// SavePNG draws on a white w×h canvas and writes it to path as a PNG.
func SavePNG(path string, w, h vg.Length, drawOn func(draw.Canvas)) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	drawOn(dc)
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// StyledLine is the curve of the i-th method: plotutil's i-th colour and dashes.
func StyledLine(xys plotter.XYs, i int) (*plotter.Line, error) {
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	line.Color = plotutil.Color(i)
	line.Dashes = plotutil.Dashes(i)
	line.Width = vg.Points(1.5)
	return line, nil
}

// NewLogPlot returns a plot with a grid and a logarithmic y axis labelled by
// DecadeTicks.
func NewLogPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = DecadeTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// DecadeTicks labels powers of ten on a log axis, every k-th decade so that at most
// about eight are labelled, with unlabelled ticks on the other decades.
type DecadeTicks struct{}

// Ticks implements plot.Ticker.
func (DecadeTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := max(1, (b-a+7)/8)
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		t := plot.Tick{Value: math.Pow10(e)}
		if e%step == 0 {
			t.Label = "1e" + strconv.Itoa(e)
		}
		ticks = append(ticks, t)
	}
	return slices.DeleteFunc(ticks, func(t plot.Tick) bool { return t.Value < lo/10 || t.Value > hi*10 })
}
