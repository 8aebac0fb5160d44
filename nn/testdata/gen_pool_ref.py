#!/usr/bin/python3
"""Generate nn/testdata/pool_ref.json: PyTorch reference values and derivatives
of the pooling and interpolation ops of package nn, replayed by
nn/pool_ref_test.go.

Run once from the module root (Debian's python3 with torch):

    /usr/bin/python3 nn/testdata/gen_pool_ref.py > nn/testdata/pool_ref.json

Each case holds the op's parameters, its input, PyTorch's outputs (the max
pools' indices as a second, non-differentiable output) and, at a random
cotangent ybar and a random direction v, the vjp, jvp and hvp computed as in
gen_torch_ref.py (whose case() it reuses). The "ties" cases draw small integers,
so that windows hold repeated maxima: their indices show which one PyTorch picks.
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
_stdout = sys.stdout
sys.stdout = open(os.devnull, "w")  # gen_torch_ref prints its own cases on import
import gen_torch_ref as ref  # noqa: E402
sys.stdout.close()
sys.stdout = _stdout

torch.manual_seed(20261128)
ref.CASES.clear()
DT = torch.float64

MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


def ties(*shape):
    return torch.randint(0, 3, shape).to(DT)


def max_pool(name, x, nd, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    params = {"nd": nd, "kernel_size": kernel_size, "stride": stride, "padding": padding,
              "dilation": dilation, "ceil_mode": ceil_mode}
    ref.case("max_pool%dd/%s" % (nd, name), "max_pool", params, [x],
             lambda x: MAX[nd](x, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True),
             outputs_diff=[True, False])


def avg_pool(name, x, nd, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    params = {"nd": nd, "kernel_size": kernel_size, "stride": stride, "padding": padding,
              "ceil_mode": ceil_mode, "count_include_pad": count_include_pad, "divisor_override": divisor_override}
    if nd == 1:
        fn = lambda x: F.avg_pool1d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)  # noqa: E731
    else:
        fn = lambda x: AVG[nd](x, kernel_size, stride, padding, ceil_mode, count_include_pad,  # noqa: E731
                               divisor_override)
    ref.case("avg_pool%dd/%s" % (nd, name), "avg_pool", params, [x], fn)


def adaptive(name, x, nd, kind, output_size):
    params = {"nd": nd, "output_size": output_size}
    if kind == "max":
        f = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d}[nd]
        ref.case("adaptive_max_pool%dd/%s" % (nd, name), "adaptive_max_pool", params, [x],
                 lambda x: f(x, output_size, return_indices=True), outputs_diff=[True, False])
    else:
        f = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d}[nd]
        ref.case("adaptive_avg_pool%dd/%s" % (nd, name), "adaptive_avg_pool", params, [x],
                 lambda x: f(x, output_size))


def interp(name, x, mode, size=None, scale_factor=None, align_corners=None):
    params = {"mode": mode, "size": size, "scale_factor": scale_factor, "align_corners": align_corners}
    ref.case("interpolate/%s/%s" % (mode, name), "interpolate", params, [x],
             lambda x: F.interpolate(x, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners))


r = lambda *s: torch.randn(*s, dtype=DT)  # noqa: E731

max_pool("k3 s2 p1", r(2, 3, 9), 1, 3, 2, 1)
max_pool("k2 dilation 2 ceil unbatched", r(2, 8), 1, 2, None, 0, 2, True)
max_pool("k2", r(2, 2, 6, 6), 2, 2)
max_pool("k3 s2 p1", r(1, 2, 7, 7), 2, 3, 2, 1)
max_pool("k3 s2 p1 ceil", r(1, 2, 6, 6), 2, 3, 2, 1, 1, True)
max_pool("k (2 3) s (1 2) dilation (2 1) unbatched", r(2, 7, 8), 2, (2, 3), (1, 2), 0, (2, 1))
max_pool("k2 s (1 2 2) p1", r(1, 2, 3, 5, 5), 3, 2, (1, 2, 2), 1)
max_pool("ties k2", ties(2, 2, 6, 6), 2, 2)
max_pool("ties k3 s2 p1 ceil", ties(1, 3, 7, 7), 2, 3, 2, 1, 1, True)
max_pool("ties k3 s1 dilation 2", ties(1, 2, 9), 1, 3, 1, 0, 2)
max_pool("ties k2 s1", ties(1, 1, 3, 4, 4), 3, 2, 1)
max_pool("nan entries", torch.tensor([[[1.0, float("nan"), 2.0, float("nan"), float("nan"), 0.5]]], dtype=DT), 1, 3, 1)
max_pool("-inf entries", torch.tensor([[[-float("inf"), -float("inf"), 1.0, -float("inf")]]], dtype=DT), 1, 2)

avg_pool("k3 s2 p1", r(2, 3, 9), 1, 3, 2, 1)
avg_pool("k3 s2 p1 ceil no pad count unbatched", r(2, 8), 1, 3, 2, 1, True, False)
avg_pool("k2", r(2, 2, 6, 6), 2, 2)
avg_pool("k3 s2 p1", r(1, 2, 7, 7), 2, 3, 2, 1)
avg_pool("k3 s2 p1 ceil", r(1, 2, 6, 6), 2, 3, 2, 1, True)
avg_pool("k3 s2 p1 ceil no pad count", r(1, 2, 6, 6), 2, 3, 2, 1, True, False)
avg_pool("k (2 3) p 1 divisor 4 unbatched", r(2, 5, 6), 2, (2, 3), 1, 1, False, True, 4)
avg_pool("k2 s (1 2 2) p1", r(1, 2, 3, 5, 5), 3, 2, (1, 2, 2), 1)
avg_pool("k3 s2 p1 ceil no pad count", r(1, 1, 4, 6, 5), 3, 3, 2, 1, True, False)
avg_pool("k2 divisor 3", r(1, 2, 4, 4, 4), 3, 2, None, 0, False, True, 3)

adaptive("out 4 of 9", r(2, 3, 9), 1, "avg", 4)
adaptive("out 5 of 3", r(1, 2, 3), 1, "avg", 5)
adaptive("out (3 4) of (7 9)", r(1, 2, 7, 9), 2, "avg", (3, 4))
adaptive("out 2 unbatched", r(2, 5, 5), 2, "avg", 2)
adaptive("out 4 of 9", r(2, 3, 9), 1, "max", 4)
adaptive("out (3 4) of (7 9)", r(1, 2, 7, 9), 2, "max", (3, 4))
adaptive("out (4 5) of (3 3) unbatched", r(2, 3, 3), 2, "max", (4, 5))
adaptive("ties out (3 2)", ties(1, 2, 6, 5), 2, "max", (3, 2))

interp("size 7", r(2, 2, 4), "nearest", size=7)
interp("scale 0.6", r(2, 1, 9), "nearest", scale_factor=0.6)
interp("size (5 7)", r(1, 2, 3, 4), "nearest", size=(5, 7))
interp("size (6 8) double", r(1, 2, 3, 4), "nearest", size=(6, 8))
interp("scale 1.7", r(1, 2, 3, 4), "nearest", scale_factor=1.7)
interp("scale (0.5 2.5)", r(1, 1, 6, 3), "nearest", scale_factor=(0.5, 2.5))
interp("scale 1.3 5-D", r(1, 1, 2, 3, 4), "nearest", scale_factor=1.3)
interp("size 7", r(2, 2, 4), "linear", size=7)
interp("size 3 align", r(2, 2, 5), "linear", size=3, align_corners=True)
interp("size (5 7)", r(1, 2, 3, 4), "bilinear", size=(5, 7))
interp("size (5 7) align", r(1, 2, 3, 4), "bilinear", size=(5, 7), align_corners=True)
interp("size (2 3) down", r(1, 2, 5, 7), "bilinear", size=(2, 3))
interp("scale 1.7", r(1, 2, 3, 4), "bilinear", scale_factor=1.7)
interp("scale (0.6 2.5) align", r(2, 1, 5, 3), "bilinear", scale_factor=(0.6, 2.5), align_corners=True)
interp("size (1 4) align", r(1, 1, 3, 3), "bilinear", size=(1, 4), align_corners=True)
interp("scale 1.1 same size", r(1, 1, 4, 5), "bilinear", scale_factor=1.1)
interp("scale 2", r(1, 1, 2, 3, 2), "trilinear", scale_factor=2)

json.dump({"generator": "nn/testdata/gen_pool_ref.py", "torch": torch.__version__, "cases": ref.CASES},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
