#!/usr/bin/python3
"""PyTorch 1.13's times for nn's layer benchmarks (nn/norm_bench_test.go), float64,
forward and backward from a random cotangent, on one thread:
BenchmarkBatchNorm, F.batch_norm in training (affine, running statistics) of
x [32, 64, 56, 56]; BenchmarkLayerNorm, F.layer_norm of x [2048, 768] over the
last axis (affine); BenchmarkLinear, F.linear of x [256, 512] by W [512, 512]
with a bias; BenchmarkAttention, causal attention of q, k, v [4, 8, 128, 64] by
the explicit formula softmax(q k^T / 8 + mask) v (torch 1.13 has no
F.scaled_dot_product_attention).

    /usr/bin/python3 bench/layers_torch.py
"""

import math

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


wx = torch.randn(256, 512, dtype=torch.float64, requires_grad=True)
ww = torch.randn(512, 512, dtype=torch.float64, requires_grad=True)
wb = torch.randn(512, dtype=torch.float64, requires_grad=True)
wybar = torch.randn(256, 512, dtype=torch.float64)


def linear():
    torch.autograd.grad(F.linear(wx, ww, wb), (wx, ww, wb), wybar)


aq, ak, av = [torch.randn(4, 8, 128, 64, dtype=torch.float64, requires_grad=True) for _ in range(3)]
aybar = torch.randn(4, 8, 128, 64, dtype=torch.float64)
causal = torch.zeros(128, 128, dtype=torch.float64).masked_fill(~torch.ones(128, 128, dtype=torch.bool).tril(), -math.inf)


def attention():
    y = torch.softmax(aq @ ak.transpose(-2, -1) / math.sqrt(64) + causal, -1) @ av
    torch.autograd.grad(y, (aq, ak, av), aybar)


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
print("  linear 256x512 by 512x512 with bias: median %.2f ms, min %.2f ms" % timeit(linear))
print("  attention 4x8x128x64 causal: median %.2f ms, min %.2f ms" % timeit(attention))
