//go:build amd64 && !noasm

package lapack

import "golang.org/x/sys/cpu"

// useGemvAsm selects the AVX2 + FMA kernels of gemv_amd64.s.
var useGemvAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useSymvAVX512 selects symv4AVX512 for the columns in groups of eight.
var useSymvAVX512 = useGemvAsm && cpu.X86.HasAVX512F

//go:noescape
func dot4AVX2(a *float64, lda, n int, x *float64, d *[4]float64)

//go:noescape
func axpy4AVX2(a *float64, lda, n int, c *[4]float64, y *float64)

//go:noescape
func symv4AVX2(a *float64, lda, n int, x *float64, c *[4]float64, y *float64, d *[4]float64)

//go:noescape
func symv4AVX512(a *float64, lda, n int, x *float64, c *[4]float64, y *float64, d *[4]float64)

//go:noescape
func gemvNAVX2(a *float64, lda, m, n int, x, y *float64, incy int, alpha float64)

//go:noescape
func gemvTAVX2(a *float64, lda, m, n int, x, y *float64, alpha float64)
