#!/usr/bin/python3
"""PyTorch's time for the work of nn's BenchmarkPool2d: max_pool2d and avg_pool2d
of a float64 [32 64 56 56] input, forward and backward from a ones cotangent,
kernel 2 stride 2 and kernel 3 stride 2 padding 1, on one thread.

    /usr/bin/python3 bench/pool_torch.py [--threads 1] [--repeat 10]

Prints, per workload, the minimum and median wall milliseconds of the repeats,
and the minimum process CPU milliseconds (less disturbed by other load on a
shared machine).
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--repeat", type=int, default=10)
args = ap.parse_args()
torch.set_num_threads(args.threads)
torch.manual_seed(1)
x0 = torch.randn(32, 64, 56, 56, dtype=torch.float64)
seed = torch.ones(32, 64, 28, 28, dtype=torch.float64)
work = [
    ("max_pool2d/k2s2", lambda x: F.max_pool2d(x, 2)),
    ("max_pool2d/k3s2p1", lambda x: F.max_pool2d(x, 3, 2, 1)),
    ("avg_pool2d/k2s2", lambda x: F.avg_pool2d(x, 2)),
    ("avg_pool2d/k3s2p1", lambda x: F.avg_pool2d(x, 3, 2, 1)),
]
print("torch %s, %d thread(s)" % (torch.__version__, torch.get_num_threads()))
for name, f in work:
    times, cpu = [], []
    for _ in range(args.repeat + 1):
        x = x0.clone().requires_grad_(True)
        t0, c0 = time.perf_counter(), time.process_time()
        f(x).backward(seed)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    times, cpu = times[1:], cpu[1:]  # the first run warms up
    print("%-22s forward+backward  wall min %7.2f ms  median %7.2f ms  cpu min %7.2f ms"
          % (name, 1e3 * min(times), 1e3 * statistics.median(times), 1e3 * min(cpu)))
