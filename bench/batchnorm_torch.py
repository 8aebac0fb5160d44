#!/usr/bin/python3
"""PyTorch 1.13's time for nn's BenchmarkBatchNorm: F.batch_norm in training
(affine, running statistics) of x [32, 64, 56, 56] float64, forward and backward
from a random cotangent, on one thread.

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


def step():
    y = F.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
    torch.autograd.grad(y, (x, gamma, beta), ybar)


for _ in range(2):
    step()
times = []
for _ in range(10):
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)
times.sort()
print("torch %s batch_norm 32x64x56x56 float64 train forward+backward, 1 thread: median %.1f ms, min %.1f ms"
      % (torch.__version__, 1e3 * times[len(times) // 2], 1e3 * times[0]))
