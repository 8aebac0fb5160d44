//go:build !amd64 || noasm

package vmath

// sumDevBlocks leaves every element to the Go loop.
func sumDevBlocks([]float64, float64, *[32]float64) int { return 0 }

// normApplyBlocks leaves every element to the Go loop.
func normApplyBlocks(y, x, w, b []float64, mu, rs float64) int { return 0 }

// normPullSumsBlocks leaves every element to the Go loop.
func normPullSumsBlocks(x, g, w, wa, ba []float64, mu, rs float64, s *[16]float64) int { return 0 }

// normPullBarBlocks leaves every element to the Go loop.
func normPullBarBlocks(out, x, g, w []float64, mu, rs, mg, mgx float64) int { return 0 }

// sumDev32Blocks leaves every element to the Go loop.
func sumDev32Blocks([]float32, float64, *[32]float64) int { return 0 }

// normApply32Blocks leaves every element to the Go loop.
func normApply32Blocks(y, x, w, b []float32, mu, rs float32) int { return 0 }

// normPullSums32Blocks leaves every element to the Go loop.
func normPullSums32Blocks(x, g, w []float32, wa, ba []float64, mu, rs float32, s *[16]float64) int {
	return 0
}

// normPullBar32Blocks leaves every element to the Go loop.
func normPullBar32Blocks(out, x, g, w []float32, mu, rs, mg, mgx float32) int { return 0 }

// dot32Blocks leaves every element to the Go loop.
func dot32Blocks(x, y []float32, s *[8]float64) int { return 0 }

// max32Blocks leaves every element to the Go loop.
func max32Blocks(x []float32, m *[16]float32) int { return 0 }
