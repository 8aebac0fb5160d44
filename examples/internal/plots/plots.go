// Package plots holds the gonum/plot helpers that the example programs share: a
// log-scale convergence plot with decade ticks, one line style per method, two plots
// side by side with a shared legend, and PNG output on a white canvas.
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

// Pair is two plots side by side with one legend for both, in a strip on their
// right (inside a plot it would hide some curve or other): each method has a curve
// on each plot.
type Pair struct {
	Left, Right *plot.Plot
	Legend      plot.Legend
}

// NewPair returns the Pair of left and right with an empty legend at the top left of
// its strip.
func NewPair(left, right *plot.Plot) *Pair {
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = vg.Inch/10, -vg.Inch/2
	legend.ThumbnailWidth = vg.Inch / 2
	return &Pair{Left: left, Right: right, Legend: legend}
}

// Add draws the curves of the i-th method, named name in the legend: left on Left
// and right on Right, both in the method's style (StyledLine).
func (p *Pair) Add(name string, i int, left, right plotter.XYs) error {
	l, err := StyledLine(left, i)
	if err != nil {
		return err
	}
	r, err := StyledLine(right, i)
	if err != nil {
		return err
	}
	p.Left.Add(l)
	p.Right.Add(r)
	p.Legend.Add(name, l)
	return nil
}

// SavePNG draws the pair on a white w×h canvas, the legend in a strip legendWidth
// wide on the right, and writes it to path as a PNG.
func (p *Pair) SavePNG(path string, w, h, legendWidth vg.Length) error {
	return SavePNG(path, w, h, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 3, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
		canvases := plot.Align([][]*plot.Plot{{p.Left, p.Right}}, tiles, draw.Crop(dc, 0, -legendWidth, 0, 0))
		p.Left.Draw(canvases[0][0])
		p.Right.Draw(canvases[0][1])
		p.Legend.Draw(draw.Crop(dc, w-legendWidth, 0, 0, 0))
	})
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
