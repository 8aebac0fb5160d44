//go:build !amd64 || noasm

package vmath

// mul3Blocks leaves every element to the Go loop.
func mul3Blocks(dst, a, b, d []float64, c float64) int { return 0 }

// tanhBackwardBlocks leaves every element to the Go loop.
func tanhBackwardBlocks(dst, y, g []float64) int { return 0 }

// tanhBackwardPullBlocks leaves every element to the Go loop.
func tanhBackwardPullBlocks(gy, gg, v, y, g []float64) int { return 0 }

// mul3PullBlocks leaves every element to the Go loop.
func mul3PullBlocks(ga, gb, gd, a, b, d, w []float64, c float64) int { return 0 }

// addBlocks leaves every element to the Go loop.
func addBlocks(dst, a, b []float64) int { return 0 }

// add32Blocks leaves every element to the Go loop.
func add32Blocks(dst, a, b []float32) int { return 0 }

// tanhPull32Blocks leaves every element to the Go loop.
func tanhPull32Blocks(dst, y, v []float32) int { return 0 }

// tanhPullTangent32Blocks leaves every element to the Go loop.
func tanhPullTangent32Blocks(xb, xbd, y, w, wd, xd []float32) int { return 0 }
