#!/usr/bin/python3
"""Generate nn/testdata/rows_ref.json: PyTorch reference values and derivatives
for the row kernels of package nn (layer_norm, softmax and log_softmax along
the last axis, causal and scaled attention), in float64 and in float32, at
sizes that reach the kernels' vector blocks and their tails (rows of 37, 48 and
33 elements), replayed by nn/rows_ref_test.go.

Run once from the module root (Debian's python3 with torch 1.13):

    /usr/bin/python3 nn/testdata/gen_rows_ref.py > nn/testdata/rows_ref.json

The format is that of gen_torch_ref.py and gen_norm_ref.py (output, vjp, jvp
and hvp per case, the params of those generators' cases of the same op), every
tensor of a case in the case's dtype: the float32 cases are drawn, computed and
differentiated by torch in single precision, and each float32 number is written
in the shortest form that reads back as the same float32. torch 1.13 has no
F.scaled_dot_product_attention, so attention is the explicit formula
softmax(q k^T * scale + mask) v, with the causal mask tril(ones(L, S)).
"""

import json
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(20261128)
CASES = []


def enc(t):
    single = t.dtype == torch.float32
    flat = t.detach().reshape(-1).tolist()

    def num(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(str(np.float32(v))) if single else v

    return {"dtype": "float32" if single else "float64", "shape": list(t.shape), "data": [num(v) for v in flat]}


def case(name, op, params, inputs, fn):
    """Record a case: fn maps the inputs (all differentiable) to one output."""
    xs = [x.clone().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    rec = {"name": name, "op": op, "params": params,
           "inputs": [dict(enc(x), grad=True) for x in inputs], "outputs": [enc(out)]}
    ybar = torch.randn_like(out)
    v = [torch.randn_like(x) for x in xs]
    ybar_var = ybar.clone().requires_grad_(True)
    g = torch.autograd.grad([out], xs, grad_outputs=[ybar_var], create_graph=True, allow_unused=True)
    g = [gi if gi is not None else torch.zeros_like(x) for gi, x in zip(g, xs)]
    s = sum((gi * vi).sum() for gi, vi in zip(g, v))
    jvp = torch.autograd.grad(s, [ybar_var], retain_graph=True, allow_unused=True)
    jvp = [j if j is not None else torch.zeros_like(ybar) for j in jvp]
    hvp = torch.autograd.grad(s, xs, allow_unused=True)
    hvp = [h if h is not None else torch.zeros_like(x) for h, x in zip(hvp, xs)]
    rec["ybar"] = [enc(ybar)]
    rec["v"] = [enc(x) for x in v]
    rec["vjp"] = [enc(x) for x in g]
    rec["jvp"] = [enc(x) for x in jvp]
    rec["hvp"] = [enc(x) for x in hvp]
    CASES.append(rec)


def layer_norm_cases(dt):
    for name, shape, ns, weight, bias, eps in [
        ("[4 37] over [37] affine, mean 5", (4, 37), [37], True, True, 1e-5),
        ("[2 2 24] over [2 24] weight", (2, 2, 24), [2, 24], True, False, 1e-5),
        ("[3 33] over [33] bias eps 1e-3", (3, 33), [33], False, True, 1e-3),
        ("[2 40] over [40]", (2, 40), [40], False, False, 1e-5),
    ]:
        x = torch.randn(*shape, dtype=dt) * 3 + (5 if "mean 5" in name else 0)
        ins = [x]
        if weight:
            ins.append(torch.randn(*ns, dtype=dt))
        if bias:
            ins.append(torch.randn(*ns, dtype=dt))

        def fn(*args, ns=ns, weight=weight, bias=bias, eps=eps):
            x, rest = args[0], list(args[1:])
            w = rest.pop(0) if weight else None
            b = rest.pop(0) if bias else None
            if w is None and b is not None:
                # torch 1.13's double backward of F.layer_norm fails with a bias
                # and no weight, so the derivatives come from the formula, whose
                # value is checked against F.layer_norm.
                dims = tuple(range(-len(ns), 0))
                mean = x.mean(dims, keepdim=True)
                var = ((x - mean) ** 2).mean(dims, keepdim=True)
                y = (x - mean) / torch.sqrt(var + eps) + b
                tol = 1e-5 if x.dtype == torch.float32 else 1e-12
                assert torch.allclose(y, F.layer_norm(x, ns, w, b, eps), rtol=tol, atol=tol)
                return y
            return F.layer_norm(x, ns, w, b, eps)

        case("layer_norm/%s %s" % (name, dt_name(dt)), "layer_norm",
             {"normalized_shape": ns, "weight": weight, "bias": bias, "eps": eps}, ins, fn)


def softmax_cases(dt):
    x = torch.randn(5, 37, dtype=dt) * 3
    x[1, 4] = 30
    for op, f in [("softmax", torch.softmax), ("log_softmax", torch.log_softmax)]:
        case("%s/[5 37] last axis %s" % (op, dt_name(dt)), op, {"axis": -1}, [x], lambda x, f=f: f(x, dim=-1))


def attention_cases(dt):
    def sdpa(q, k, v, mask=None, scale=None):
        scale = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
        s = q @ k.transpose(-2, -1) * scale
        if mask is not None:
            s = s + mask
        return torch.softmax(s, -1) @ v

    for l, s, scale in [(6, 9, None), (9, 6, 0.4)]:
        causal = torch.zeros(l, s, dtype=dt).masked_fill(~torch.ones(l, s, dtype=torch.bool).tril(), -math.inf)
        params = {"causal": True}
        if scale is not None:
            params["scale"] = scale
        case("attention/causal [1 2 %d 4] [1 2 %d 4] %s" % (l, s, dt_name(dt)), "attention", params,
             [torch.randn(1, 2, l, 4, dtype=dt), torch.randn(1, 2, s, 4, dtype=dt), torch.randn(1, 2, s, 3, dtype=dt)],
             lambda q, k, v, m=causal, sc=scale: sdpa(q, k, v, m, sc))
    case("attention/scale 0.3 [2 5 4] [2 7 4] %s" % dt_name(dt), "attention", {"scale": 0.3},
         [torch.randn(2, 5, 4, dtype=dt), torch.randn(2, 7, 4, dtype=dt), torch.randn(2, 7, 3, dtype=dt)],
         lambda q, k, v: sdpa(q, k, v, None, 0.3))


def dt_name(dt):
    return "float32" if dt == torch.float32 else "float64"


for dt in [torch.float64, torch.float32]:
    layer_norm_cases(dt)
    softmax_cases(dt)
    attention_cases(dt)
json.dump({"generator": "nn/testdata/gen_rows_ref.py", "torch": torch.__version__, "cases": CASES},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
