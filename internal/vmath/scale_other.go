//go:build !amd64 || noasm

package vmath

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
