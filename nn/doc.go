// Package nn holds the neural-network functions of chainrules-go that PyTorch users
// expect beyond the elementwise, reduction and indexing primitives, each with a
// pullback, a forward tangent and an exact second-order rule, registered by Register
// with samples for testing/ruletest and checked against a PyTorch reference
// (testdata/torch_ref.json, written by testdata/gen_torch_ref.py):
//
//   - softmax and log_softmax along an axis (SoftmaxOp, LogSoftmaxOp), fused by
//     hand with PyTorch's max-shifted formula;
//   - losses, with PyTorch's reductions (mean, sum, none): cross_entropy with class
//     labels (CrossEntropyOp) or target probabilities (CrossEntropyProbsOp), label
//     smoothing, class weights and an ignored label; nll_loss (NLLLossOp);
//     mse_loss (MSELossOp); huber_loss (HuberLossOp);
//     binary_cross_entropy_with_logits (BCEWithLogitsOp) in its stable form;
//   - scans along an axis: cumsum (CumsumOp), cumprod (CumprodOp, exact with zeros),
//     logcumsumexp (LogCumsumExpOp, stable), and the first-order linear recurrence
//     h_j = a_j h_{j-1} + b_j they are built on (LinearScanOp);
//   - matmul (MatmulOp): Python's a @ b with PyTorch's rules for 1-D operands and
//     batch broadcasting, a shorthand over einsum;
//   - clamp with both bounds, scalars (ClampOp) or tensors (ClampTensorOp), with
//     PyTorch's gradient convention at the bounds;
//   - convolutions with PyTorch's arguments, layouts NCL/NCHW/NCDHW: conv1d/2d/3d
//     (Conv1dOp, Conv2dOp, Conv3dOp: stride, padding or "same"/"valid", dilation,
//     groups, padding_mode zeros/reflect/replicate/circular, optional bias) and
//     conv_transpose1d/2d/3d (ConvTranspose1dOp, ... with output_padding), by
//     im2col and the project's GEMM (stride-1 zero-padded ones by implicit
//     GEMM, the GEMM packing im2col's rows straight from the padded image),
//     bilinear rules recorded with each other;
//   - layers (testdata/norm_ref.json, written by testdata/gen_norm_ref.py): linear
//     (LinearOp, x W^T + b); the normalisations batch_norm (BatchNormOp, training
//     with the updated running statistics as outputs, or evaluation), layer_norm,
//     group_norm and instance_norm (LayerNormOp, GroupNormOp, InstanceNormOp), with
//     fused kernels; dropout with a seeded mask (DropoutOp);
//     scaled_dot_product_attention (ScaledDotProductAttentionOp) with additive,
//     boolean or causal masks; and embedding (EmbeddingOp, index_select's
//     row-sparse lookup);
//   - sort and topk (SortOp, TopKOp): multi-output ops (values, indices) whose
//     indices are not differentiable (chainrules.PartialOp);
//   - pooling and interpolation over (N, C, spatial...) inputs: max_pool1d/2d/3d
//     and adaptive_max_pool1d/2d (MaxPool2dOp, ...), multi-output ops (values,
//     indices) whose ties go to the first maximum; avg_pool1d/2d/3d and
//     adaptive_avg_pool1d/2d (AvgPool2dOp, ...); interpolate (InterpolateOp:
//     nearest, linear, bilinear, trilinear), checked against
//     testdata/pool_ref.json (testdata/gen_pool_ref.py);
//   - argmax, argmin and one_hot (ArgmaxOp, ArgminOp, OneHotOp): not differentiable;
//     differentiating through them is an error wrapping chainrules.ErrNoRule, never a
//     silent zero. They are registered marked chainrules.Entry.NoDerivative, and
//     testing/ruletest checks that typed error.
//
// The ops are written the cheapest way that is exact and fast: composites of other
// ops (cumprod, mse_loss, huber_loss, binary_cross_entropy_with_logits), a primal
// with a pullback recorded with ops (core.Define: cumsum, logcumsumexp, linear_scan),
// a constructor (clamp with scalar bounds, elementwise.Unary), or hand-written rules
// where speed needs them (softmax, log_softmax, cross_entropy, nll_loss, clamp with
// tensor bounds, sort, topk). Every op is float64; the ones whose mathematics allows
// it (mse_loss, cumsum, cumprod, linear_scan, matmul) also take complex128, with
// PyTorch's convention for complex derivatives; softmax, log_softmax and
// logcumsumexp stay float64 because PyTorch 1.13, their reference, refuses complex
// input to them. Every op also takes float32 (and complex64 where it takes
// complex128): it runs in double precision on the exactly widened inputs and rounds
// each result once, with every rule and derivatives of every order
// (opkit.ApplyWidened); the convolutions, the pools and interpolate run float32
// natively instead (float32 kernels and the float32 GEMM, at about half
// float64's time and memory) when all their inputs are float32, and so do
// layer_norm, group_norm, instance_norm, batch_norm in training, softmax and
// log_softmax along the last axis and cross_entropy with labels (float32
// arithmetic, float64 statistics
// and sums, as PyTorch's CPU kernels; their first-order pullback native, their
// other rules the widened op's). Each op has a
// plain function that evaluates it without a tape (Softmax, CrossEntropy,
// Cumprod, Sort, ...).
//
// Derivatives of higher order (core.Tape.GradGraph, PyTorch's create_graph) need
// each op's pullback recorded with ops (chainrules.PullbackRecorder). The
// composites and Define ops have it from their recordings; the hand-written rules
// record their pullback formulas too: softmax, log_softmax and the class losses
// with elementwise and reduce ops (and softmax and log_softmax themselves), which
// a recorded sweep differentiates again as far as those ops reach; clamp with
// tensor bounds, sort and topk with linear ops (where, sums, scatter_add), to
// every order.
//
// For instance the mean cross-entropy of logits x [N, C] against labels y,
//
//	l = (1/N) sum_r (logsumexp(x_r) - x_{r, y_r}),   xbar = (softmax(x) - onehot(y)) lbar / N,
//
// is one node:
//
//	smoothed := tape.Apply(nn.CrossEntropyOp(labels, nn.LabelSmoothing(0.1)), logits)
package nn
