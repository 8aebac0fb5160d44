// Package oracle replays reference derivatives computed by PyTorch against our
// rules. The cases come from the tensor-ad-oracles project (vendored, gzip
// compressed, under testdata/cases with their licences); each holds an op's inputs
// and one or more probes: a unit tangent direction v, a unit cotangent ybar, and
// PyTorch's
//
//	jvp = J v,   vjp = J^* ybar,   hvp = H_phi v  with  phi(x) = Re<ybar, f(x)>,
//
// under PyTorch's complex convention (a pullback is the adjoint of the JVP under
// Re<a, b>, the same as ours). Replay runs our op on a core.Tape: a forward sweep
// for J v, a backward sweep seeded with ybar for J^* ybar, and a second-order sweep
// seeded with (ybar, 0) over the forward tangents for H_phi v, and compares each
// with the reference at the case's own tolerance
//
//	|ours - ref| <= atol + rtol * max(|ours|, |ref|)   elementwise.
//
// Cases whose expected behaviour is an error must produce an error. Replay skips
// the float32 and complex64 cases; ReplaySingle replays them in single precision
// (inputs, cotangents and directions rounded to the case's dtypes, which are
// exact for its data; the upstream tolerances of those cases, as loose as atol 10,
// capped at SingleTol = 1e-4), for ops that take float32 and complex64 tensors. The
// elementwise, reduce, einsum and index packages replay every case that way.
//
//	func TestExpOracle(t *testing.T) {
//		cases, err := oracle.Load("exp")
//		require.NoError(t, err)
//		oracle.Replay(t, cases, func(c *oracle.Case) (chainrules.Op[*tensor.Dense], []*tensor.Dense, error) {
//			x, err := c.DenseInputs()
//			return elementwise.ExpOp, x, err
//		})
//	}
//
// To vendor the cases of more ops, run from the module root
//
//	go run ./testing/oracle/internal/vendor -src ../shared/oracles -ops exp,sum,mul
package oracle
