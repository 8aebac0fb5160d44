//go:build !amd64 || noasm

package lapack

// useGemvAsm is false: this build has no assembly kernels.
const useGemvAsm = false

// useSymvAVX512 is false: this build has no assembly kernels.
const useSymvAVX512 = false

func dot4AVX2(*float64, int, int, *float64, *[4]float64)  { panic("no assembly") }
func axpy4AVX2(*float64, int, int, *[4]float64, *float64) { panic("no assembly") }
func symv4AVX2(*float64, int, int, *float64, *[4]float64, *float64, *[4]float64) {
	panic("no assembly")
}

func symv4AVX512(*float64, int, int, *float64, *[4]float64, *float64, *[4]float64) {
	panic("no assembly")
}

func gemvNAVX2(*float64, int, int, int, *float64, *float64, int, float64) { panic("no assembly") }
func gemvTAVX2(*float64, int, int, int, *float64, *float64, float64)      { panic("no assembly") }
