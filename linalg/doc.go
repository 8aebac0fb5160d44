// Package linalg is linear algebra for chainrules-go: PyTorch's torch.linalg ops
// on *tensor.Dense with pullbacks, forward tangents and exact second-order rules,
// so that gradients, JVPs and Hessian-vector products flow through factorisations.
//
//	l := tape.Apply(linalg.CholeskyOp(false), k)                       // K = L L^T
//	alpha := tape.Apply(linalg.CholeskySolveOp(false), y, l)           // K^-1 y
//	w := tape.ApplyMulti(linalg.EighOp(), a)                           // (w, V)
//	x, err := linalg.Solve(av, bv)                                     // no tape
//
// Every op is batched over leading dims as in PyTorch (matrices are the last two
// dims; the batch dims of two-input ops broadcast) and has a tape-free form
// (Solve, Cholesky, Eigh, ...). Register adds the op families, with sample inputs,
// to a registry; package ops registers them with the other built-in families.
//
// # How the rules are made
//
// Most ops are core.Define ops: a primal in plain Go (LAPACK-style kernels) and a
// pullback recorded with registered ops — einsum, elementwise, permute, index,
// reduce and this package's own ops (solve's pullback uses solve, lu_factor's and
// qr's use solve_triangular). The engine derives the forward tangent by transposing
// the recorded pullback and the second-order rule by a forward sweep through it, so
// every op has exact forward-over-reverse Hessian-vector products, also through
// nested factorisations. solve_triangular and cholesky, the building blocks of the
// others' pullbacks and of Gaussian likelihoods, have hand-written rules (forward,
// pullback and second order in a few triangular solves and products each), for
// speed; the other ops are composites (core.Composite), whose rules are those of
// the recording.
//
// The ops without parameters are constructors too, XxxOp() (SolveOp(), DetOp(),
// EighOp()), each call returning a new op, where other packages export a variable
// (the exception to the naming scheme of the chainrules package doc), for two
// reasons. An op may hold per-instance state: SolveOp's op carries a cache of the
// LU factors of A, shared by its forward pass and the solves that its pullback
// records, so that the backward pass does not factorise A again; a package
// variable would share that cache between every tape and goroutine. And the rules
// are recorded with this package's ops, often the op itself (the pullback of
// MatrixExpOp is a matrix exponential, that of SolveOp a solve), which a package
// variable cannot refer to in its own initializer. The other parameterless ops are
// built with core's Define or Composite, whose ops hold no mutable state, and keep
// the constructor form for uniformity: calling one once and keeping the op is the
// same as calling it at every use.
//
// Derivatives of higher order (core.Tape.GradGraph, PyTorch's create_graph) need
// each op's pullback recorded with ops (chainrules.PullbackRecorder). Define and
// Composite ops have it from their recordings; solve_triangular and cholesky record
// the formulas of their hand-written pullbacks (with solve_triangular itself, einsum,
// masks and elementwise ops); eigh and svd record their fast path's formula
// (V diag(wbar) V^H, U diag(Sbar) Vh) when only the eigenvalues (singular values)
// have a cotangent, and the defined pullback otherwise. How many orders a recorded
// sweep then reaches is set by the ops in those recordings (einsum and the
// elementwise ops need recorded pullbacks of their own for order 3 and beyond;
// the ordinary sweeps differentiate a recorded gradient once more, to order 3 by
// forward over reverse). Each family passes testing/ruletest at
// its samples (finite differences, adjoint identities, second order, full
// Jacobians of small samples) and replays PyTorch's reference JVPs, VJPs and HVPs
// (testing/oracle).
//
// # The rules
//
// Notation: ybar is an output's cotangent, X^H the conjugate transpose (X^T for
// real X), herm(X) = (X + X^H)/2, o the elementwise product; pullbacks of
// batch-broadcast inputs are summed over the broadcast dims.
//
//	solve            X = A^-1 B          Bbar = A^-H Xbar, Abar = -Bbar X^H
//	solve_triangular X = T^-1 B          Bbar = T^-H Xbar, Abar = P(-Bbar X^H)
//	                 (or B T^-1)         (P keeps the triangle that is read)
//	cholesky         A = L L^H           Abar = herm(L^-H Phi(L^H Lbar) L^-1),
//	                                     Phi = lower triangle, diagonal halved
//	cholesky_solve   (L L^H)^-1 B        two solve_triangular (composite)
//	inv              Y = A^-1            Abar = -Y^H Ybar Y^H
//	det              d = det A           Abar = ybar conj(d) A^-H
//	logdet           log det A           Abar = ybar A^-H
//	slogdet          (sign, log|det A|)  Abar = (lbar - i Im(conj(sbar) sign)) A^-H
//	                                     (a real sign is locally constant: lbar A^-T)
//	eigh             A = V diag(w) V^H   Abar = V (diag(wbar) + F o skew(V^H Vbar)) V^H,
//	                                     F_ij = 1/(w_j - w_i), F_ii = 0,
//	                                     skew(X) = (X - X^H)/2
//	eigvalsh         w                   Abar = V diag(wbar) V^H
//	eig (real A)     A V = V diag(L)     Abar = Re(V^-H G V^H), G_ii = Lbar_i,
//	                                     G_ij = (V^H Vbar - V^H V diag(Re diag(V^H Vbar)))_ij
//	                                     / (conj(L_j) - conj(L_i))
//	eigvals          L                   Abar = Re(V^-H diag(Lbar) V^H)
//	svd              A = U diag(S) Vh    Abar = U [(J o F) S + S (K o F) + diag(Sbar)
//	                                     + i Im(diag(U^H Ubar)) S^-1] Vh
//	                                     + (I - U U^H) Ubar S^-1 Vh + U S^-1 Vhbar (I - V V^H),
//	                                     J = U^H Ubar - Ubar^H U, K = V^H Vbar - Vbar^H V,
//	                                     F_ij = 1/(S_j^2 - S_i^2) (the Im term: complex A)
//	svdvals          S                   Abar = U diag(Sbar) Vh
//	qr (m >= n)      A = Q R             Abar = (Qbar + Q copyltu(M)) R^-H,
//	                                     M = R Rbar^H - Qbar^H Q, copyltu(M) =
//	                                     tril(M, -1) + tril(M, -1)^H + Re diag(M)
//	                                     (m < n: see QROp)
//	pinv             P = A^+             PyTorch's pinv_backward (see PinvOp)
//	lstsq            X = A^+ B           composite of pinv and einsum (Bbar = P^H Xbar)
//	matrix_exp       exp(A)              Abar = [exp([[A^H, Ybar], [0, A^H]])]_12
//	matrix_power     A^k                 repeated squaring (composite)
//	lu_factor        A = P L U           Abar = P L^-H [tril(L^H Lbar, -1) +
//	                                     triu(Ubar U^H)] U^-H (square; see LUFactorOp)
//	lu_solve         op(A)^-1 B          Bbar = op(A)^-H Xbar, LUbar from Abar = -Bbar X^H
//	vector_norm      ||x||_p             PyTorch's norm_backward (see VectorNormOp)
//	matrix_norm, cond, trace, cross, vecdot, vander, tensorinv, tensorsolve,
//	householder_product, lu             composites
//
// The forward tangents are the transposes of these maps (for example
// Xdot = A^-1 (Bdot - Adot X), Ldot = L Phi(L^-1 Sdot L^-H),
// wdot = diag(V^T Adot V)) and the second-order rules their derivatives along the
// input tangents; the engine derives both from the recorded pullbacks.
//
// # Hermitian inputs, gauges and degenerate inputs
//
// cholesky, eigh and eigvalsh read their input through its Hermitian part
// herm(A), which is A itself for the Hermitian inputs PyTorch accepts (PyTorch reads
// one triangle): the op is then a function of every entry, and its gradient is
// Hermitian, as PyTorch's. (PyTorch's OpInfo tests these ops on
// A -> op(A + A^H); the oracle replay does the same.)
//
// Eigenvectors, singular vectors and Q follow LAPACK's conventions: each
// eigenvector, each pair of singular vectors, each column of Q (with the row of R)
// is defined up to a sign. For QR and for eigh and svd of small matrices (QR
// iterations) LAPACK's choice evolves continuously with the matrix, so the outputs
// are differentiable where the spectrum is simple (the rule checks run on them
// directly); for larger matrices the inverse-iteration convention (xSTEIN: the entry
// of largest magnitude of each eigenvector of the tridiagonal form is positive)
// flips a vector's sign where two entries tie. Only losses
// invariant under the sign changes have derivatives that do not depend on the
// choice: for eigh, functions of w and of V diag(f(w)) V^H (of the eigenprojectors
// v_i v_i^H) or of |V|; for svd, functions of S, U Vh, U diag(f(S)) Vh, |U|, |Vh|;
// for qr, functions of Q diag(R) and of |Q|, |R|. The eigenvectors of a complex
// Hermitian matrix are defined up to a phase e^{i phi} each: the same losses are
// the phase-invariant ones, and eigh's backward pass refuses, as PyTorch's, a
// cotangent that depends on the phases (Im diag(V^H Vbar) not zero: an error
// wrapping chainrules.ErrInvalidArgument). Likewise each pair of singular vectors
// (u_i, v_i) of a complex matrix is defined up to a common phase, (U, Vh) ->
// (U D, D^H Vh) with D diagonal unitary; the losses above are the phase-invariant
// ones, and svd's backward pass refuses, as PyTorch's, a cotangent that depends on
// the phases (Im diag(U^H Ubar) != -Im diag(Vh Vhbar^H), tolerances 1e-2).
//
// Degenerate inputs behave as in PyTorch. Repeated eigenvalues (singular values)
// make F infinite: derivatives through V (U, Vh) are infinite or NaN, while those of
// functions of w (S) alone stay finite — eigvalsh, svdvals, matrix_norm "nuc" take
// the direct pullback V diag(wbar) V^H. The second derivatives of eigenvalues do
// not exist at a crossing and come out infinite. A NaN or Inf entry of eigh's or
// eigvalsh's input is an error wrapping chainrules.ErrInvalidArgument (the
// eigenvalues of a matrix with one are not defined; an iterative solver would
// return finite numbers without a warning); so is one of the input of svd,
// svdvals, pinv, lstsq (of A), matrix_norm "nuc", 2, -2 and cond 2, -2, whose
// singular values are not defined (LAPACK's iterations would return NaN, fail to
// converge, or, through pinv's cut-off, silently give zeros). solve, inv and
// lu_factor of a singular matrix, and cholesky of a matrix that is not positive-definite, are
// errors; det is 0, with PyTorch's finite gradient there, the cofactor matrix
// ybar adj(A)^H (see DetOp); logdet is -Inf (NaN for a negative real
// determinant), slogdet (0, -Inf); a rank-deficient A gives infinite derivatives
// of qr, and pinv is discontinuous across a change of rank.
//
// # Errors
//
// Invalid input is an error, never a panic: an error wrapping
// chainrules.ErrShapeMismatch for shapes that do not fit (non-square matrices,
// batch dims that do not broadcast), chainrules.ErrInvalidArgument for bad
// parameters and for inputs outside the op's domain (singular, not
// positive-definite, complex input to a float64-only op), with the op's name in the
// message ("cholesky: the matrix is not positive-definite (the leading minor
// of order 3 is not positive-definite)"). Shapes are checked before any kernel runs,
// and so are sizes: an input too large for memory to hold a copy of (a broadcast
// view, which costs nothing to make, of 2^62 elements, say) and batch dims that
// broadcast to a batch too large to hold are errors wrapping
// chainrules.ErrInvalidArgument (tensor.CheckAlloc), not panics in an allocation.
//
// # Data types
//
// float64 and complex128: solve, solve_triangular, cholesky, cholesky_solve, inv,
// det, logdet, slogdet, eigh, eigvalsh, svd, svdvals, qr, pinv, lstsq, lu_factor,
// lu, lu_solve, matrix_exp, matrix_power, vector_norm, matrix_norm (every ord),
// cond (every norm), trace, cross, vecdot, vander, tensorinv, tensorsolve,
// householder_product. The complex kernels are the package's own unblocked ones
// (LU with LAPACK's pivot choice, Cholesky, triangular solves, Padé, Householder
// QR with LAPACK's zgeqr2/zung2r reflectors, so that R's diagonal is real, and
// the Jacobi SVD below); gonum's LAPACK is real-only.
//
// float32 and complex64: every op, in the kinds it takes in double precision. The
// inputs are widened exactly, the double-precision kernels and rules run, and each
// output is rounded once to single precision (opkit.ApplyWidened; a float64 input
// next to a float32 one keeps the outputs double, as in PyTorch). Cotangents and
// tangents are rounded to their inputs' dtypes and recorded pullbacks sit between
// recorded casts, so derivatives of every order stay in single precision. A
// factorisation so costs what its double-precision twin does, plus the casts; its
// result is the correctly rounded double-precision one, more accurate than LAPACK's
// sgetrf or ssyevd in float32 arithmetic.
//
// float64 only: eig and eigvals, the eigen-decomposition of general real
// matrices (L and V complex128, as in PyTorch), through gonum's Dgeev. Complex
// input would need a complex Hessenberg-QR eigensolver (LAPACK's zgeev), which
// gonum lacks; it is an error wrapping chainrules.ErrInvalidArgument that says
// "float64-only". eig's eigenvectors (unit norm, largest component real, as
// LAPACK's) are defined up to a phase each: the invariant losses are functions of
// L, of |V| and of V diag(f(L)) V^-1, and the backward pass refuses, as PyTorch's,
// a cotangent that depends on the phases.
//
// Complex eigh and eigvalsh reduce the Hermitian matrix to a real tridiagonal one
// with complex Householder reflections (zhetrd's algorithm, unblocked), after which
// the real tridiagonal solvers of the float64 path take over (see Backends); w is
// float64 and V complex, as in PyTorch.
//
// Complex svd and svdvals use the one-sided (Hestenes) Jacobi method: accurate
// (to rounding, relative to the largest singular value), O(sweeps m n^2) and
// unblocked, so slower than the float64 path for large matrices; S is float64 and
// U, Vh complex, as in PyTorch. pinv, lstsq, matrix_norm "nuc", 2, -2 and cond 2,
// -2, "nuc" of complex input are built on it (their results real where PyTorch's
// are).
//
// # Backends
//
// The float64 kernels are the package's own, LAPACK's algorithms arranged so that
// their O(n^3) work is matrix products through tensor.Gemm, the project's packed
// AVX2 / AVX-512 GEMM (gonum's pure-Go LAPACK provides the small building blocks:
// Householder reflectors, Dsterf, Dgeqr2, and the small matrices):
//
//   - Cholesky, LU with partial pivoting (LAPACK's pivots) and triangular solves:
//     recursive algorithms;
//   - QR: blocked Householder (xGEQRF) with compact WY updates;
//   - eigh (n > 48): blocked tridiagonalisation of the lower triangle (xSYTRD:
//     panels by xLATRD with the package's AVX2 matrix-vector kernels, the
//     rank-2k trailing update as matrix products), eigenvalues by the
//     Pal-Walker-Kahan QR algorithm (Dsterf) without vectors, with them divide
//     and conquer (xSTEDC: deflation, the secular equation as xLAED4, Gu and
//     Eisenstat's vectors, the merges as matrix products) or, if it fails,
//     Dsterf and inverse iteration with reorthogonalisation in clusters
//     (xSTEIN), back-transformation in compact WY form; if an eigenvector does
//     not converge, gonum's Dsyev;
//   - svdvals (min(m, n) > 128): blocked bidiagonalisation (xGEBRD: panels by
//     xLABRD on the same kernels, one matrix product a panel for the trailing
//     update) and dqds (as xGESDD without vectors);
//   - svd (min(m, n) > 48): the same bidiagonalisation, singular values (dqds)
//     and vectors (inverse iteration) from the Golub-Kahan tridiagonal matrix (as
//     xGESVDX), verified on the bidiagonal factors (orthogonality, B V = U S) with
//     gonum's Dgesvd as the fallback, which also takes matrices with zero or tiny
//     singular values;
//   - smaller eigh, svd and svdvals: gonum's Dsyev and Dgesvd through lapack64;
//   - eig and eigvals: gonum's Dgeev through lapack64.
//
// They need no setup and change no global state. Two process-wide switches, both
// off by default (the package never changes global state by itself, in an init
// function or anywhere else):
//
//	linalg.UseLAPACK64(true)    // every float64 factorisation through lapack64 and
//	lapack64.Use(impl)          // blas64: with a native LAPACK installed (a cgo
//	                            // OpenBLAS or MKL binding), its routines
//	blas64.Use(tensor.BLAS{})   // gonum's LAPACK on the project's GEMM: speeds up
//	                            // the lapack64 paths (the fallbacks, small eigh
//	                            // and svd, and everything under UseLAPACK64)
//
// tensor.BLAS is gonum's BLAS with the project's Dgemm (same results up to
// rounding), so installing it only changes speed; it is not installed by default
// because it would also change every other user of blas64 in the process.
//
// # Performance
//
// n = 512, float64, one thread (go test -bench Ops -cpu 1 on the project's
// machine, best of three runs: the machine is shared, and figures move by 20% or
// more between runs); "forward" is the op alone, recorded without gradient,
// "+ backward" records it and runs the backward pass of a sum of its output
// (eigvalsh and svdvals for eigh and svd: without gradient they compute the
// values alone, with it the vectors too). PyTorch 1.13 on OpenBLAS's AVX-512
// kernel, one thread, from bench/compare.py (forward and, where measured,
// forward + backward); gonum from the project's notes:
//
//	op                forward   + backward   PyTorch            gonum
//	cholesky           3.5 ms      14 ms      3.3 / 16 ms        9.8 ms
//	lu_factor          4.5 ms      58 ms      2.7 ms            18.6 ms
//	solve (512 rhs)    8.9 ms      18 ms      10 ms
//	inv                8.4 ms      17 ms
//	logdet (LU)        3.3 ms      12 ms
//	qr                  17 ms      50 ms
//	eigvalsh           9.1 ms      24 ms      7.2 / 23 ms       678 ms (with vectors)
//	svdvals             20 ms      56 ms       23 / 51 ms       858 ms (with vectors)
//
// (gonum's Dsyev and Dgesvd take 1.25 s and 1.35 s on this machine.) The eigvalsh
// and svdvals rows are CPU time per op, which the load of a shared machine does not
// inflate: BenchmarkDecompSizes's cpu-ms/op, and PyTorch timed by
// time.process_time in the same session. At n = 128 and 1024 they are 0.51 / 1.2
// and 0.94 / 2.7 ms (PyTorch 0.35 / 0.86 and 0.60 / 1.45 ms), and 50 / 139 and
// 116 / 312 ms (PyTorch 42 / 138 and 135 / 297 ms).
package linalg
