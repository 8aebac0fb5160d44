#!/usr/bin/python3
"""PyTorch 1.13's time for nn's BenchmarkBatchNorm: F.batch_norm in training
(affine, running statistics) of x [32, 64, 56, 56] float64, forward and backward
from a random cotangent, on one thread; and for BenchmarkLayerNorm, F.layer_norm
of x [2048, 768] over the last axis (affine).

    /usr/bin/python3 bench/batchnorm_torch.py
"""

import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1)
n, c, h, w = 32, 64, 56, 56
x = torch.randn(n, c, h, w, dtype=torch.float64, requires_grad=True)
gamma = torch.randn(c, dtype=torch.float64, requires_grad=True)
beta = torch.randn(c, dtype=torch.float64, requires_grad=True)
rm, rv = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)
ybar = torch.randn(n, c, h, w, dtype=torch.float64)


def batch_norm():
    y = F.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
    torch.autograd.grad(y, (x, gamma, beta), ybar)


lx = torch.randn(2048, 768, dtype=torch.float64, requires_grad=True)
lw = torch.randn(768, dtype=torch.float64, requires_grad=True)
lb = torch.randn(768, dtype=torch.float64, requires_grad=True)
lybar = torch.randn(2048, 768, dtype=torch.float64)


def layer_norm():
    y = F.layer_norm(lx, (768,), lw, lb, 1e-5)
    torch.autograd.grad(y, (lx, lw, lb), lybar)


def timeit(step):
    for _ in range(2):
        step()
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2], 1e3 * times[0]


print("torch %s float64 forward+backward, 1 thread:" % torch.__version__)
print("  batch_norm 32x64x56x56 train: median %.1f ms, min %.1f ms" % timeit(batch_norm))
print("  layer_norm 2048x768: median %.2f ms, min %.2f ms" % timeit(layer_norm))
