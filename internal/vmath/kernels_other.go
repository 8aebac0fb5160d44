//go:build !amd64 || noasm

package vmath

// asmKernels returns no implementation: this build has no assembly.
func asmKernels() []*kernels { return nil }

// sumExpBlocks leaves every element to the Go loop.
func sumExpBlocks([]float64, float64, *[8]float64) int { return 0 }

// extremeBlocks leaves every element to the Go loop.
func extremeBlocks([]float64, *[8]float64, bool) int { return 0 }

// dotBlocks leaves every element to the Go loop.
func dotBlocks([]float64, []float64, *[32]float64) int { return 0 }
