"""PyTorch reference of single-precision ops, for ops/single_ref_test.go. Run with
Debian's python (torch 1.13):

    /usr/bin/python3 ops/testdata/gen_single_ref.py

It writes ops/testdata/single_ref.json: for each case the inputs (float32 or
complex64, some float64 to check promotion), PyTorch's output and its dtype, the
VJP for a given output cotangent, the JVP along given input tangents and, for
real cases, the HVP of phi(x) = sum(ybar * f(x)) along the tangents. Values are
computed in the cases' own dtypes, as a float32 PyTorch program would.
"""
import json
import os

import torch
from torch.autograd.functional import hvp, jvp, vjp

here = os.path.dirname(os.path.abspath(__file__))
g = torch.Generator().manual_seed(25)


def rand(shape, dtype, lo=-1.0, hi=1.0):
    if dtype.is_complex:
        re = torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
        im = torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
        return torch.complex(re, im).to(dtype)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def enc(t):
    t = t.detach()
    if t.is_complex():
        data = torch.view_as_real(t.reshape(-1).to(torch.complex128)).reshape(-1).tolist()
    else:
        data = t.reshape(-1).to(torch.float64).tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "data": data}


CASES = [
    # name, op, Go op key, input specs (shape, dtype, lo, hi)
    ("exp float32", lambda x: torch.exp(x), "exp", [((3, 4), torch.float32, -2, 2)]),
    ("tanh float32", lambda x: torch.tanh(x), "tanh", [((3, 4), torch.float32, -2, 2)]),
    ("tanh complex64", lambda x: torch.tanh(x), "tanh", [((2, 3), torch.complex64, -1, 1)]),
    ("add broadcast float32", lambda a, b: a + b, "add", [((3, 4), torch.float32, -1, 1), ((4,), torch.float32, -1, 1)]),
    ("mul float32", lambda a, b: a * b, "mul", [((3, 4), torch.float32, -1, 1), ((3, 4), torch.float32, -1, 1)]),
    ("mul float32 float64", lambda a, b: a * b, "mul", [((2, 3), torch.float32, -1, 1), ((2, 3), torch.float64, -1, 1)]),
    ("mul float32 complex64", lambda a, b: a * b, "mul", [((2, 3), torch.float32, -1, 1), ((2, 3), torch.complex64, -1, 1)]),
    ("sum axis 1 float32", lambda x: torch.sum(x, dim=1), "sum1", [((3, 40), torch.float32, -1, 1)]),
    ("matmul float32", lambda a, b: a @ b, "matmul", [((3, 4), torch.float32, -1, 1), ((4, 5), torch.float32, -1, 1)]),
    ("matmul complex64", lambda a, b: a @ b, "matmul", [((2, 3), torch.complex64, -1, 1), ((3, 2), torch.complex64, -1, 1)]),
]

out = []
for name, f, key, specs in CASES:
    xs = tuple(rand(s, dt, lo, hi) for s, dt, lo, hi in specs)
    y = f(*xs)
    ybar = rand(tuple(y.shape), y.dtype)
    vs = tuple(rand(tuple(x.shape), x.dtype) for x in xs)
    _, xbar = vjp(f, xs, ybar)
    _, ydot = jvp(f, xs, vs)
    case = {"name": name, "op": key, "inputs": [enc(x) for x in xs], "output": enc(y),
            "cotangent": enc(ybar), "vjp": [enc(v) for v in xbar],
            "tangents": [enc(v) for v in vs], "jvp": enc(ydot)}
    if not any(x.is_complex() for x in xs) and not y.is_complex():
        _, h = hvp(lambda *a: (ybar * f(*a)).sum(), xs, vs)
        case["hvp"] = [enc(v) for v in h]
    out.append(case)

with open(os.path.join(here, "single_ref.json"), "w") as fh:
    json.dump({"torch": torch.__version__, "cases": out}, fh)
print("torch", torch.__version__, len(out), "cases")
