"""Times one Adam step of the digits CNN in PyTorch 1.13 on one thread, the step of
BenchmarkAdamStep: the cross-entropy of a minibatch of 64 images, its gradient with
respect to the parameters (batch norm in training mode, its running statistics
updated), and torch.optim.Adam's update (foreach=False, the path
package optim follows), in float64 as the Go program computes.

    /usr/bin/python3 examples/cnn/adam_step_torch.py

It prints the median and the best time per step over a few repetitions, and the
process CPU time per step.
"""
import gzip
import os
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.manual_seed(1)

here = os.path.dirname(os.path.abspath(__file__))
with gzip.open(os.path.join(here, "testdata", "digits.csv.gz"), "rt") as f:
    data = np.loadtxt(f, delimiter=",")
x = torch.tensor(data[:64, :64] / 16, dtype=torch.float64).reshape(64, 1, 8, 8)
y = torch.tensor(data[:64, 64], dtype=torch.int64)

model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1, bias=False), torch.nn.BatchNorm2d(32), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Flatten(), torch.nn.Linear(128, 10)).double()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)


def step():
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()


for _ in range(50):
    step()
n, times = 200, []
cpu0 = time.process_time()
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    times.append((time.perf_counter() - t0) / n)
cpu = (time.process_time() - cpu0) / (5 * n)
times.sort()
print(f"torch {torch.__version__}, 1 thread: Adam step of the digits CNN, batch 64: "
      f"median {times[2] * 1e6:.0f} us, best {times[0] * 1e6:.0f} us, CPU {cpu * 1e6:.0f} us per step")
