//go:build !amd64 || noasm

package vmath

// fusedAVX2 is false without the assembly (tests switch it off on amd64 to run
// the Go loops; here there is nothing to switch).
var fusedAVX2 = false

// mulBlocks leaves every element to the Go loop.
func mulBlocks(dst, a, b []float64) int { return 0 }

// scaleBlocks leaves every element to the Go loop.
func scaleBlocks(dst, x []float64, c float64) int { return 0 }

// negBlocks leaves every element to the Go loop.
func negBlocks(dst, x []float64) int { return 0 }

// indexEqBlocks leaves every element to the Go loop.
func indexEqBlocks(x []float64, y float64) int { return 0 }

// axpyBlocks leaves every element to the Go loop.
func axpyBlocks(y []float64, s float64, x []float64) int { return 0 }

// mulSumBlocks leaves every element to the Go loop.
func mulSumBlocks(dst, a, b []float64, s *[8]float64) int { return 0 }

// scaleSumBlocks leaves every element to the Go loop.
func scaleSumBlocks(dst, x []float64, c float64, s *[8]float64) int { return 0 }
