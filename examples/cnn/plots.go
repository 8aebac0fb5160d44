package main

import (
	"fmt"
	"image/color"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/chainrules-go/chainrules/examples/internal/plots"
)

// writePlots writes cnn-curves.png, cnn-confusion.png and, after a Newton-CG run,
// cnn-methods.png into dir.
func writePlots(dir string, res *outcome) error {
	if err := writeCurves(filepath.Join(dir, "cnn-curves.png"), res); err != nil {
		return err
	}
	if err := writeConfusion(filepath.Join(dir, "cnn-confusion.png"), res); err != nil {
		return err
	}
	if res.Newton == nil {
		return nil
	}
	return writeMethods(filepath.Join(dir, "cnn-methods.png"), res)
}

// writeCurves plots Adam's loss (log scale) and accuracy per epoch, on the training
// minibatches and on the test set.
func writeCurves(path string, res *outcome) error {
	loss := plots.NewLogPlot("Adam: cross-entropy", "epoch", "loss")
	acc := accuracyPlot("Adam: accuracy", "epoch")
	pair := plots.NewPair(loss, acc)
	var trainLoss, testLoss, trainAcc, testAcc plotter.XYs
	for i, e := range res.Epochs {
		x := float64(i + 1)
		trainLoss = append(trainLoss, plotter.XY{X: x, Y: e.Loss})
		testLoss = append(testLoss, plotter.XY{X: x, Y: e.TestLoss})
		trainAcc = append(trainAcc, plotter.XY{X: x, Y: 100 * e.TrainAcc})
		testAcc = append(testAcc, plotter.XY{X: x, Y: 100 * e.TestAcc})
	}
	if err := pair.Add("training", 0, trainLoss, trainAcc); err != nil {
		return err
	}
	if err := pair.Add("test", 1, testLoss, testAcc); err != nil {
		return err
	}
	return pair.SavePNG(path, 10*vg.Inch, 4*vg.Inch, 1.4*vg.Inch)
}

// writeMethods plots the training loss and the test accuracy of Adam (per epoch)
// and Newton-CG (per iteration) against the training time.
func writeMethods(path string, res *outcome) error {
	loss := plots.NewLogPlot("training loss (Adam: per epoch, Newton-CG: per iteration)", "seconds", "loss")
	acc := accuracyPlot("test accuracy", "seconds")
	loss.X.Min, acc.X.Min = 0, 0
	pair := plots.NewPair(loss, acc)
	var adamLoss, adamAcc, newtonLoss, newtonAcc plotter.XYs
	for _, e := range res.Epochs {
		x := (e.Elapsed - e.Evaluated).Seconds()
		adamLoss = append(adamLoss, plotter.XY{X: x, Y: e.Loss})
		adamAcc = append(adamAcc, plotter.XY{X: x, Y: 100 * e.TestAcc})
	}
	for _, p := range res.Trace {
		x := p.Elapsed.Seconds()
		newtonLoss = append(newtonLoss, plotter.XY{X: x, Y: p.Loss})
		newtonAcc = append(newtonAcc, plotter.XY{X: x, Y: 100 * p.TestAcc})
	}
	if err := pair.Add("Adam", 0, adamLoss, adamAcc); err != nil {
		return err
	}
	if err := pair.Add("Newton-CG", 1, newtonLoss, newtonAcc); err != nil {
		return err
	}
	return pair.SavePNG(path, 10*vg.Inch, 4*vg.Inch, 1.6*vg.Inch)
}

// accuracyPlot is a plot of accuracies in percent, with a grid.
func accuracyPlot(title, xlabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "accuracy (%)"
	p.Y.Max = 100
	p.Add(plotter.NewGrid())
	return p
}

// confusion is the confusion matrix as gonum's GridXYZ: column c is the predicted
// digit c, row r the true digit 9 - r (so that 0 is at the top).
type confusion [classes][classes]int

func (m *confusion) Dims() (c, r int)   { return classes, classes }
func (m *confusion) Z(c, r int) float64 { return float64(m[classes-1-r][c]) }
func (m *confusion) X(c int) float64    { return float64(c) }
func (m *confusion) Y(r int) float64    { return float64(r) }

// writeConfusion draws Adam's confusion matrix on the test set as a heat map with
// the count in every cell.
func writeConfusion(path string, res *outcome) error {
	m := confusion(res.Confusion)
	hi := 0
	right, total := 0, 0
	for i := range classes {
		for j := range classes {
			hi = max(hi, m[i][j])
			total += m[i][j]
		}
		right += m[i][i]
	}
	blues, err := brewer.GetPalette(brewer.TypeSequential, "Blues", 9)
	if err != nil {
		return err
	}
	colors := blues.Colors()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Adam: test set confusion matrix (%d of %d right)", right, total)
	p.X.Label.Text, p.Y.Label.Text = "predicted digit", "true digit"
	hm := plotter.NewHeatMap(&m, palette.Palette(paletteOf(colors)))
	hm.Min, hm.Max = 0, float64(max(hi, 1))
	p.Add(hm)
	var cells plotter.XYLabels
	var styles []text.Style
	for r := range classes {
		for c := range classes {
			n := int(m.Z(c, r))
			cells.XYs = append(cells.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			cells.Labels = append(cells.Labels, fmt.Sprint(n))
			st := text.Style{Color: color.Black, Handler: p.Title.TextStyle.Handler, XAlign: draw.XCenter, YAlign: draw.YCenter,
				Font: p.X.Tick.Label.Font}
			if 2*n > hi {
				st.Color = color.White
			}
			styles = append(styles, st)
		}
	}
	labels, err := plotter.NewLabels(cells)
	if err != nil {
		return err
	}
	labels.TextStyle = styles
	p.Add(labels)
	ticks := make([]plot.Tick, classes)
	yticks := make([]plot.Tick, classes)
	for i := range classes {
		ticks[i] = plot.Tick{Value: float64(i), Label: fmt.Sprint(i)}
		yticks[i] = plot.Tick{Value: float64(i), Label: fmt.Sprint(classes - 1 - i)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	return plots.SavePNG(path, 6*vg.Inch, 6*vg.Inch, p.Draw)
}

// paletteOf is a fixed list of colours as a palette.Palette.
type paletteOf []color.Color

func (p paletteOf) Colors() []color.Color { return p }
