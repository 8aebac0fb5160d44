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
