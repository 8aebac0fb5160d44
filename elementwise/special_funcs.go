package elementwise

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/chainrules-go/chainrules/tensor"
)

// Scalar special functions behind fn_special.go.

// bernoulli2k holds B_2, B_4, ..., B_20.
var bernoulli2k = [...]float64{1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
	-3617.0 / 510, 43867.0 / 798, -174611.0 / 330}

// polygammaAsymptotic is the bound above which polygamma uses its asymptotic series;
// smaller positive arguments are shifted up by the recurrence.
const polygammaAsymptotic = 20

// polygamma returns psi^(n)(x), the n-th derivative of the digamma function psi
// (n = 0 is psi itself), for n >= 0:
//
//   - x >= 20: the asymptotic series psi(x) = log x - 1/(2x) - sum_k B_2k/(2k x^2k) and,
//     for n >= 1, psi^(n)(x) = (-1)^(n+1) [(n-1)!/x^n + n!/(2x^(n+1)) +
//     sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n))], with k up to 10 (relative error below
//     1e-16 for n <= 8);
//   - 0 < x < 20: the recurrence psi^(n)(x) = psi^(n)(x+1) - (-1)^n n!/x^(n+1);
//   - x < 0: the reflection psi^(n)(x) = (-1)^n psi^(n)(1-x) - pi^(n+1) cot^(n)(pi x),
//     with cot^(n) a polynomial in cot (see cotDeriv);
//   - at the poles x = 0, -1, -2, ...: PyTorch's values, -Inf at +0 and NaN at the
//     negative integers for psi, and (-1)^(n+1) Inf for n >= 1.
func polygamma(n int, x float64) float64 {
	switch {
	case x != x || n < 0:
		return math.NaN()
	case x == 0 || (x < 0 && x == math.Trunc(x)):
		if n == 0 {
			if x == 0 {
				return math.Copysign(math.Inf(1), -x)
			}
			return math.NaN()
		}
		return signPow(n+1) * math.Inf(1)
	case math.IsInf(x, 1):
		if n == 0 {
			return x
		}
		return 0
	case math.IsInf(x, -1):
		return math.NaN()
	case x < 0:
		r := x - 2*math.Round(x/2) // x mod 2 in [-1, 1], exact: cot(pi x) has period 1
		c := 1 / math.Tan(math.Pi*r)
		return signPow(n)*polygamma(n, 1-x) - math.Pow(math.Pi, float64(n+1))*cotDeriv(n, c)
	}
	var shift float64 // sum of the recurrence terms
	nf := factorial(n)
	for ; x < polygammaAsymptotic; x++ {
		shift += math.Pow(x, -float64(n+1))
	}
	shift *= signPow(n) * nf
	if n == 0 {
		x2 := 1 / (x * x)
		var s float64
		p := x2
		for k, b := range bernoulli2k {
			s += b / float64(2*(k+1)) * p
			p *= x2
		}
		return math.Log(x) - 0.5/x - s - shift
	}
	// (-1)^(n+1) [(n-1)!/x^n + n!/(2x^(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n))]
	xn := math.Pow(x, -float64(n))
	s := factorial(n-1)*xn + nf*xn/(2*x)
	c := nf / 2 // (2k+n-1)!/(2k)! for k = 1 is (n+1)!/2 = n! (n+1)/2
	p := xn / (x * x)
	for k, b := range bernoulli2k {
		kk := float64(2 * (k + 1))
		if k == 0 {
			c = nf * float64(n+1) / 2
		} else {
			c *= (kk + float64(n) - 2) * (kk + float64(n) - 1) / ((kk - 1) * kk)
		}
		s += b * c * p
		p /= x * x
	}
	return signPow(n+1)*s - shift
}

// cotDeriv returns d^n/du^n cot(u) at cot(u) = c: P_n(c) with P_0(c) = c and
// P_(k+1)(c) = -(1 + c²) P_k'(c).
func cotDeriv(n int, c float64) float64 {
	p := []float64{0, 1} // coefficients of P_k, lowest degree first
	for range n {
		q := make([]float64, len(p)+1)
		for j := 1; j < len(p); j++ { // -(1 + c²) j p_j c^(j-1)
			d := float64(j) * p[j]
			q[j-1] -= d
			q[j+1] -= d
		}
		p = q
	}
	var v float64
	for j := len(p) - 1; j >= 0; j-- {
		v = v*c + p[j]
	}
	return v
}

func factorial(n int) float64 {
	f := 1.0
	for k := 2; k <= n; k++ {
		f *= float64(k)
	}
	return f
}

// signPow is (-1)^n.
func signPow(n int) float64 {
	if n%2 == 0 {
		return 1
	}
	return -1
}

// mvlgamma is the multivariate log-gamma function of dimension p:
// log Gamma_p(x) = p(p-1)/4 log pi + sum_{j<p} lgamma(x - j/2), NaN for
// x <= (p-1)/2 (where PyTorch raises an error).
func mvlgamma(p int, x float64) float64 {
	if !(x > float64(p-1)/2) {
		return math.NaN()
	}
	s := float64(p*(p-1)) / 4 * math.Log(math.Pi)
	for j := range p {
		v, _ := math.Lgamma(x - float64(j)/2)
		s += v
	}
	return s
}

// mvpolygamma is sum_{j<p} psi^(n)(x - j/2), the derivatives of mvlgamma (NaN
// outside its domain).
func mvpolygamma(n, p int, x float64) float64 {
	if !(x > float64(p-1)/2) {
		return math.NaN()
	}
	var s float64
	for j := range p {
		s += polygamma(n, x-float64(j)/2)
	}
	return s
}

// besselSeries is the bound on |x| below which the modified Bessel functions come
// from their power series (all terms positive, so no cancellation), and above which
// from their asymptotic expansion.
const besselSeries = 30

// besselAsym is the asymptotic expansion of e^-x I_nu(x) for x = ax > 0 and
// mu = 4 nu^2,
//
//	(2 pi x)^(-1/2) sum_k (-1)^k prod_(j<=k) (mu - (2j-1)^2) / (k! (8x)^k),
//
// summed until its terms stop falling or fall below 1e-17 of the sum (at most
// terms of them).
func besselAsym(mu, ax float64, terms int) float64 {
	s, t := 1.0, 1.0
	for k := 1; k < terms; k++ {
		next := -t * (mu - float64((2*k-1)*(2*k-1))) / (float64(k) * 8 * ax)
		if math.Abs(next) >= math.Abs(t) {
			break
		}
		t = next
		s += t
		if math.Abs(t) < 1e-17*math.Abs(s) {
			break
		}
	}
	return s / math.Sqrt(2*math.Pi*ax)
}

// besselI returns e^-|x| times I0(x), I1(x), I1(x)/x and I1"(x), the modified Bessel
// functions of the first kind of orders 0 and 1 (PyTorch's i0e and i1e and the
// pieces of their derivatives). I1(x)/x is 1/2 at 0, and I1" = I1 - (I0 - 2 I1/x)/x.
func besselI(x float64) (s0, s1, s1x, s1pp float64) {
	ax := math.Abs(x)
	if ax > besselSeries || math.IsInf(x, 0) {
		// I_nu(x) e^-x ~ (2 pi x)^(-1/2) sum_k (-1)^k prod_(j<=k) (4nu² - (2j-1)²)/(k! (8x)^k)
		asym := func(mu float64) float64 { return besselAsym(mu, ax, 60) }
		s0, s1 = asym(0), asym(4)
		if x < 0 {
			s1 = -s1
		}
		s1x = s1 / x
		s1pp = s1 - (s0-2*s1x)/x
		return s0, s1, s1x, s1pp
	}
	// I0 = sum q^k/(k!)², I1/x = (1/2) sum q^k/(k!(k+1)!), with q = x²/4;
	// I1" = sum_(k>=1) (2k+1)(2k)/4 (x/2)^(2k-1)/(k!(k+1)!).
	q := x * x / 4
	t0, t1, v := 1.0, 0.5, x/4 // v is the k = 1 term (x/2)/(1! 2!) of the I1" sum
	i0, i1x, i1pp := t0, t1, 0.0
	for k := 1; k < 200; k++ {
		kf := float64(k)
		t0 *= q / (kf * kf)
		t1 *= q / (kf * (kf + 1))
		if k > 1 {
			v *= q / (kf * (kf + 1))
		}
		i0 += t0
		i1x += t1
		i1pp += v * (2*kf + 1) * 2 * kf / 4
		if t0 < 1e-17*i0 && t1 < 1e-17*i1x {
			break
		}
	}
	e := math.Exp(-ax)
	return e * i0, e * i1x * x, e * i1x, e * i1pp
}

// erfcx returns e^(x²) erfc(x) without overflow for large x: for x < 10 the product
// with e^(x²) evaluated as e^hi (1 + lo), x² = hi + lo exactly, and for x >= 10 the
// asymptotic series (x sqrt(pi))^-1 sum_k (-1)^k (2k-1)!!/(2x²)^k; for x < 0,
// 2 e^(x²) - erfcx(-x), +Inf once that overflows.
func erfcx(x float64) float64 {
	switch {
	case x != x:
		return x
	case x >= 10:
		t, s := 1.0, 1.0
		for k := 1; k < 30; k++ {
			t *= -float64(2*k-1) / (2 * x * x)
			s += t
			if math.Abs(t) < 1e-17 {
				break
			}
		}
		return s / (x * math.SqrtPi)
	case x < -26.7:
		return math.Inf(1)
	}
	hi := x * x
	lo := math.FMA(x, x, -hi)
	ex := math.Exp(hi) * (1 + lo)
	if x >= 0 {
		return ex * math.Erfc(x)
	}
	return 2*ex - erfcx(-x)
}

// logNdtr returns log Phi(x), Phi the standard normal CDF: through erfcx for x < -1
// (Phi(x) = erfcx(-x/sqrt 2) e^(-x²/2)/2), log1p(-Phi(-x)) for x > 0, log Phi(x)
// between.
func logNdtr(x float64) float64 {
	switch {
	case x < -1:
		return math.Log(erfcx(-x/math.Sqrt2)/2) - x*x/2
	case x > 0:
		return math.Log1p(-math.Erfc(x/math.Sqrt2) / 2)
	}
	return math.Log(math.Erfc(-x/math.Sqrt2) / 2)
}

// logNdtrD1 is phi(x)/Phi(x), through erfcx for x < -1: sqrt(2/pi)/erfcx(-x/sqrt 2).
func logNdtrD1(x float64) float64 {
	if x < -1 {
		return math.Sqrt(2/math.Pi) / erfcx(-x/math.Sqrt2)
	}
	return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) / (math.Erfc(-x/math.Sqrt2) / 2)
}

// ndtri is the standard normal quantile Phi^-1(p), accurate in both tails.
func ndtri(p float64) float64 {
	switch {
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case !(p > 0 && p < 1):
		return math.NaN()
	}
	return mathext.NormalQuantile(p)
}

// besselIn returns the modified Bessel function of the first kind I_n(x) of integer
// order n (I_-n = I_n), or e^-|x| I_n(x) if scaled: the orders above 1 that the
// derivatives of i0, i1, i0e and i1e reach. It sums the power series
// sum_k (x/2)^(2k+n)/(k! (k+n)!) (all terms of one sign, so no cancellation) where
// the asymptotic expansion of besselI is not accurate, |x| <= 30 or |x| <= n², and
// uses that expansion beyond.
func besselIn(n int, x float64, scaled bool) float64 {
	if n < 0 {
		n = -n
	}
	ax := math.Abs(x)
	var v float64
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		v = math.Inf(1)
		if scaled {
			v = 0
		}
	case ax > besselSeries && ax > float64(n)*float64(n):
		v = besselAsym(4*float64(n)*float64(n), ax, 200)
		if !scaled {
			v *= math.Exp(ax)
		}
	default:
		h := ax / 2
		t := 1.0
		for i := 1; i <= n; i++ {
			t *= h / float64(i)
		}
		q := h * h
		for k := 0; k < 2000 && t != 0; k++ {
			v += t
			t *= q / (float64(k+1) * float64(k+1+n))
			if t < 1e-17*v {
				v += t
				break
			}
		}
		if scaled {
			v *= math.Exp(-ax)
		}
	}
	if x < 0 && n%2 == 1 {
		v = -v
	}
	return v
}

// sincG returns g_n(u) = d^n/du^n sin(u)/u (g_0 = sin(u)/u, 1 at 0), the
// derivatives of sinc: by its Taylor series
// sum_(2k >= n) (-1)^k (2k)!/((2k-n)! (2k+1)!) u^(2k-n) for |u| < 1.5 + n/4, and
// beyond by Leibniz's rule on sin(u) u^-1,
// sum_(k<=n) n!/(n-k)! (-1)^k sin(u + (n-k) pi/2)/u^(k+1), each where the other
// cancels more. abs and sincos are those of the element type.
func sincG[T tensor.Element](n int, u T, abs func(T) float64, sincos func(T) (T, T)) T {
	if abs(u) < 1.5+float64(n)/4 {
		k0 := (n + 1) / 2
		term := ofReal[T](1 / float64(2*k0+1))
		if k0%2 == 1 {
			term = -term
		}
		if 2*k0-n == 1 {
			term *= u
		}
		sum, u2 := term, u*u
		for k := k0; k < k0+200; k++ {
			term *= -u2 * ofReal[T](float64(2*k+1)/(float64(2*k+2-n)*float64(2*k+1-n)*float64(2*k+3)))
			sum += term
			if abs(term) <= 1e-17*abs(sum) {
				break
			}
		}
		return sum
	}
	s, c := sincos(u)
	trig := [4]T{s, c, -s, -c} // sin(u + m pi/2)
	inv := 1 / u
	var sum T
	coef, p := 1.0, inv
	for k := 0; k <= n; k++ {
		t := ofReal[T](coef) * trig[(n-k)%4] * p
		if k%2 == 1 {
			t = -t
		}
		sum += t
		coef *= float64(n - k)
		p *= inv
	}
	return sum
}
