package main

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/chainrules-go/chainrules/tensor"
)

// dataset is a set of 8x8 grey images with their labels.
type dataset struct {
	X      *tensor.Dense // [N, 1, 8, 8], pixels in [0, 1]
	Y      *tensor.Dense // [N], the labels 0..9 as float64 (for optim.Batches)
	Labels []int         // the same labels
}

// Len is the number of samples.
func (d *dataset) Len() int { return len(d.Labels) }

// loadDigits reads the digits CSV (gzip): 64 pixel values 0..16, row-major, then the
// label, per line. The pixels are scaled to [0, 1].
func loadDigits(path string) (pixels []float64, labels []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = 65
	r.ReuseRecord = true
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, s := range rec[:64] {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > 16 {
				return nil, nil, fmt.Errorf("%s:%d: pixel %q is not an integer in [0, 16]", path, line, s)
			}
			pixels = append(pixels, float64(v)/16)
		}
		y, err := strconv.Atoi(rec[64])
		if err != nil || y < 0 || y > 9 {
			return nil, nil, fmt.Errorf("%s:%d: label %q is not a digit", path, line, rec[64])
		}
		labels = append(labels, y)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("%s: no samples", path)
	}
	return pixels, labels, nil
}

// split cuts the samples into a training set and a held-out test set with a fraction
// testFrac of every class (stratified), the samples of each class drawn in a random
// order from rng. limit > 0 keeps only the first limit samples (for short runs).
func split(pixels []float64, labels []int, testFrac float64, limit int, rng *rand.Rand) (train, test *dataset) {
	if limit > 0 && limit < len(labels) {
		labels = labels[:limit]
	}
	byClass := make([][]int, 10)
	for i, y := range labels {
		byClass[y] = append(byClass[y], i)
	}
	var trainIdx, testIdx []int
	for _, idx := range byClass {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		k := int(testFrac*float64(len(idx)) + 0.5)
		testIdx = append(testIdx, idx[:k]...)
		trainIdx = append(trainIdx, idx[k:]...)
	}
	// Mix the classes, so that a prefix of either set holds every class.
	rng.Shuffle(len(trainIdx), func(i, j int) { trainIdx[i], trainIdx[j] = trainIdx[j], trainIdx[i] })
	rng.Shuffle(len(testIdx), func(i, j int) { testIdx[i], testIdx[j] = testIdx[j], testIdx[i] })
	return gather(pixels, labels, trainIdx), gather(pixels, labels, testIdx)
}

// gather makes the dataset of the samples idx.
func gather(pixels []float64, labels []int, idx []int) *dataset {
	xs := make([]float64, 0, 64*len(idx))
	ys := make([]float64, len(idx))
	d := &dataset{Labels: make([]int, len(idx))}
	for k, i := range idx {
		xs = append(xs, pixels[64*i:64*i+64]...)
		ys[k] = float64(labels[i])
		d.Labels[k] = labels[i]
	}
	d.X, _ = tensor.FromFloat64(xs, len(idx), 1, 8, 8)
	d.Y, _ = tensor.FromFloat64(ys, len(idx))
	return d
}
