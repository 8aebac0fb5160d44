// Package optim holds first-order optimisers over a parameter set — a list of
// float64 or float32 tensors such as a network's weights and biases, the sets that package
// hvp differentiates — with the update equations of torch.optim (torch 1.13, the
// single-tensor foreach=False path, in the same order of operations, so that a run
// repeats PyTorch's to rounding), learning-rate schedules, gradient clipping and a
// minibatch iterator.
//
// An optimiser is made over the parameters, which it updates in place at every
// Step with the gradients of that step, one tensor per parameter and of its shape
// (as hvp.Grad returns them). Its state (moments, momentum buffers) is allocated
// once when it is made; Step allocates nothing.
//
//	opt, err := optim.NewAdam(params, optim.AdamConfig{LR: 1e-2})
//	if err != nil {
//		log.Fatal(err)
//	}
//	for step := 0; step < 2000; step++ {
//		_, grads, err := hvp.Grad(loss, params)
//		if err != nil {
//			log.Fatal(err)
//		}
//		if err := opt.Step(grads); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// (from ExampleAdam, which minimises sum_i exp(x_i) - c_i x_i).
//
// The updates, with g_t the gradient of step t (negated when Maximize is set),
// theta the parameters and lambda the weight decay:
//
// SGD, with momentum mu, dampening tau and buffer b (b_1 = g_1):
//
//	g_t <- g_t + lambda theta_{t-1}
//	b_t  = mu b_{t-1} + (1 - tau) g_t
//	g_t <- g_t + mu b_t (Nesterov)  or  b_t
//	theta_t = theta_{t-1} - lr g_t
//
// Adam, with moments m, v (zero at t = 0):
//
//	g_t <- g_t + lambda theta_{t-1}
//	m_t  = beta1 m_{t-1} + (1 - beta1) g_t
//	v_t  = beta2 v_{t-1} + (1 - beta2) g_t^2
//	theta_t = theta_{t-1} - lr/(1 - beta1^t) m_t / (sqrt(v_t)/sqrt(1 - beta2^t) + eps)
//
// where AMSGrad puts vmax_t = max(vmax_{t-1}, v_t) in place of v_t in the last line.
//
// AdamW: Adam without the L2 term, after theta_{t-1} <- (1 - lr lambda) theta_{t-1}.
//
// RMSprop, with smoothing alpha, average v, mean gbar (Centered) and buffer b:
//
//	g_t <- g_t + lambda theta_{t-1}
//	v_t  = alpha v_{t-1} + (1 - alpha) g_t^2
//	gbar_t = alpha gbar_{t-1} + (1 - alpha) g_t
//	d_t  = sqrt(v_t - gbar_t^2) + eps (Centered)  or  sqrt(v_t) + eps
//	b_t  = mu b_{t-1} + g_t / d_t,  theta_t = theta_{t-1} - lr b_t   (mu > 0)
//	theta_t = theta_{t-1} - lr g_t / d_t                             (mu = 0)
//
// Schedules (StepLR, CosineAnnealingLR, LinearLR and SequentialLR to chain them)
// set the optimiser's learning rate through its LR and SetLR, stepped once per
// epoch after the optimiser, as torch.optim.lr_scheduler's. ClipGradNorm is
// torch.nn.utils.clip_grad_norm_. Batches cuts a dataset held in tensors into
// minibatches, in a seeded random order.
//
// # Precision
//
// A float32 parameter is updated in float32, with its state (momentum buffers,
// moments, averages) in float32, as torch keeps the state of a float32 parameter:
// the hyperparameters are rounded to float32 as torch's scalar arguments are, and
// Adam's bias corrections are computed in float64 (Python floats in torch) and
// rounded. A set may mix float64 and float32 parameters; each is updated in its own
// precision. A gradient must have its parameter's dtype: a float64 gradient of a
// float32 parameter is refused with an error naming both, not converted.
// ClipGradNorm takes float32 gradients too, accumulating their norm in float64.
// Batches cuts float32 datasets as well as float64 ones, each tensor in its dtype.
//
// Bad hyperparameters and bad gradients are errors wrapping the chainrules
// sentinels ErrInvalidArgument and ErrShapeMismatch, never panics; a failed Step
// leaves the parameters and the state unchanged.
//
// optim/testdata/gen_optim_ref.py records PyTorch's trajectories on a
// non-quadratic problem, which the tests replay to 1e-12.
package optim
