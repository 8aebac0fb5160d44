#!/usr/bin/python3
"""Generate nn/testdata/norm_ref.json: PyTorch reference values and derivatives
for the layer ops of package nn (batch_norm, layer_norm, group_norm,
instance_norm, linear, scaled_dot_product_attention), replayed by
nn/norm_ref_test.go.

Run once from the module root (Debian's python3 with torch 1.13):

    /usr/bin/python3 nn/testdata/gen_norm_ref.py > nn/testdata/norm_ref.json

The format is that of gen_torch_ref.py (output, vjp, jvp and hvp per case; see
its doc string). batch_norm in training with running statistics has three
outputs, y and the updated running mean and variance (PyTorch updates them in
place; the case records them after the call), of which only y is
differentiable. torch 1.13 has no F.scaled_dot_product_attention, so its cases
use the explicit formula softmax(q k^T * scale + mask) v, the mask additive,
boolean (false gives -inf) or causal (tril(ones(L, S))). Dropout is not here:
its masks come from a generator other than PyTorch's (nn/dropout_test.go checks
their statistics).
"""

import json
import math
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(20261127)
DT = torch.float64


def enc(t):
    flat = t.detach().to(DT).reshape(-1).tolist()

    def num(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v

    return {"dtype": "float64", "shape": list(t.shape), "data": [num(v) for v in flat]}


def rand(*shape):
    return torch.randn(*shape, dtype=DT)


CASES = []


def case(name, op, params, inputs, fn, outputs_diff=None):
    """Record a case: fn maps the inputs (all differentiable) to a tuple of
    outputs, outputs_diff[m] says whether output m is differentiable."""
    xs = [x.clone().requires_grad_(True) for x in inputs]
    outs = fn(*xs)
    if not isinstance(outs, tuple):
        outs = (outs,)
    outputs_diff = outputs_diff or [True] * len(outs)
    rec = {"name": name, "op": op, "params": params,
           "inputs": [dict(enc(x), grad=True) for x in inputs],
           "outputs": [enc(o) for o in outs]}
    diff_out = [o for o, d in zip(outs, outputs_diff) if d]
    ybar = [torch.randn_like(o) for o in diff_out]
    v = [torch.randn_like(x) for x in xs]
    ybar_var = [y.clone().requires_grad_(True) for y in ybar]
    g = torch.autograd.grad(diff_out, xs, grad_outputs=ybar_var, create_graph=True, allow_unused=True)
    g = [gi if gi is not None else torch.zeros_like(x) for gi, x in zip(g, xs)]
    s = sum((gi * vi).sum() for gi, vi in zip(g, v))
    jvp = torch.autograd.grad(s, ybar_var, retain_graph=True, allow_unused=True)
    jvp = [j if j is not None else torch.zeros_like(y) for j, y in zip(jvp, ybar)]
    hvp = torch.autograd.grad(s, xs, allow_unused=True)
    hvp = [h if h is not None else torch.zeros_like(x) for h, x in zip(hvp, xs)]
    rec["ybar"] = [enc(y) for y in ybar]
    rec["v"] = [enc(x) for x in v]
    rec["vjp"] = [enc(x) for x in g]
    rec["jvp"] = [enc(x) for x in jvp]
    rec["hvp"] = [enc(x) for x in hvp]
    CASES.append(rec)


def affine_inputs(x, c, weight, bias):
    ins = [x]
    if weight:
        ins.append(rand(c))
    if bias:
        ins.append(rand(c))
    return ins


def split_affine(args, weight, bias):
    x, rest = args[0], list(args[1:])
    w = rest.pop(0) if weight else None
    b = rest.pop(0) if bias else None
    return x, w, b


def batch_norm_cases():
    for name, shape, training, weight, bias, running, momentum, eps in [
        ("train affine running [4 3 5]", (4, 3, 5), True, True, True, True, 0.1, 1e-5),
        ("train weight running momentum 0.3 [3 2 2 2]", (3, 2, 2, 2), True, True, False, True, 0.3, 1e-3),
        ("train plain [6 4]", (6, 4), True, False, False, False, 0.1, 1e-5),
        ("eval affine [3 4 2]", (3, 4, 2), False, True, True, True, 0.1, 1e-5),
        ("eval plain [5 3]", (5, 3), False, False, False, True, 0.1, 0.01),
    ]:
        c = shape[1]
        x = rand(*shape) * 2 + 0.5
        rm, rv = rand(c), torch.rand(c, dtype=DT) + 0.5
        params = {"training": training, "weight": weight, "bias": bias, "momentum": momentum, "eps": eps}
        if running:
            params["running_mean"], params["running_var"] = enc(rm), enc(rv)

        def fn(*args, weight=weight, bias=bias, running=running, training=training, momentum=momentum, eps=eps, rm=rm, rv=rv):
            x, w, b = split_affine(args, weight, bias)
            m, v = (rm.clone(), rv.clone()) if running else (None, None)
            y = F.batch_norm(x, m, v, w, b, training=training, momentum=momentum, eps=eps)
            if running and training:
                return (y, m, v)
            return y

        outs_diff = [True, False, False] if running and training else None
        case("batch_norm/" + name, "batch_norm", params, affine_inputs(x, c, weight, bias), fn, outs_diff)


def layer_norm_cases():
    for name, shape, ns, weight, bias, eps in [
        ("[3 4] over [4] affine", (3, 4), [4], True, True, 1e-5),
        ("[2 3 4] over [3 4]", (2, 3, 4), [3, 4], False, False, 1e-5),
        ("[2 5] over [5] weight eps 1e-3", (2, 5), [5], True, False, 1e-3),
    ]:
        x = rand(*shape) * 3 - 1
        ins = [x]
        if weight:
            ins.append(rand(*ns))
        if bias:
            ins.append(rand(*ns))

        def fn(*args, ns=ns, weight=weight, bias=bias, eps=eps):
            x, w, b = split_affine(args, weight, bias)
            return F.layer_norm(x, ns, w, b, eps)

        case("layer_norm/" + name, "layer_norm", {"normalized_shape": ns, "weight": weight, "bias": bias, "eps": eps}, ins, fn)


def group_norm_cases():
    for name, shape, groups, weight, bias, eps in [
        ("[2 6 3] 3 groups affine", (2, 6, 3), 3, True, True, 1e-5),
        ("[3 4 2 2] 2 groups", (3, 4, 2, 2), 2, False, False, 1e-5),
        ("[2 4 3] 1 group bias", (2, 4, 3), 1, False, True, 0.1),
    ]:
        # torch 1.13's double backward of F.group_norm fails with a bias and
        # no weight ("shape '[0]' is invalid"), so the derivatives come from the
        # formula, whose value is checked against F.group_norm.
        def fn(*args, groups=groups, weight=weight, bias=bias, eps=eps):
            x, w, b = split_affine(args, weight, bias)
            xg = x.reshape(x.shape[0], groups, -1)
            mean = xg.mean(-1, keepdim=True)
            var = ((xg - mean) ** 2).mean(-1, keepdim=True)
            y = ((xg - mean) / torch.sqrt(var + eps)).reshape(x.shape)
            cshape = (1, -1) + (1,) * (x.dim() - 2)
            if w is not None:
                y = y * w.reshape(cshape)
            if b is not None:
                y = y + b.reshape(cshape)
            assert torch.allclose(y, F.group_norm(x, groups, w, b, eps), rtol=1e-12, atol=1e-12)
            return y

        case("group_norm/" + name, "group_norm", {"num_groups": groups, "weight": weight, "bias": bias, "eps": eps},
             affine_inputs(rand(*shape), shape[1], weight, bias), fn)


def instance_norm_cases():
    for name, shape, weight, bias, running, use_input_stats, momentum, eps in [
        ("[2 3 5] affine", (2, 3, 5), True, True, False, True, 0.1, 1e-5),
        ("[2 2 3 3]", (2, 2, 3, 3), False, False, False, True, 0.1, 1e-5),
        ("[3 2 4] weight running momentum 0.2", (3, 2, 4), True, False, True, True, 0.2, 1e-5),
        ("[2 3 2 2] running not input stats affine", (2, 3, 2, 2), True, True, True, False, 0.1, 1e-3),
    ]:
        c = shape[1]
        rm, rv = rand(c), torch.rand(c, dtype=DT) + 0.5
        params = {"weight": weight, "bias": bias, "eps": eps, "momentum": momentum, "use_input_stats": use_input_stats}
        if running:
            params["running_mean"], params["running_var"] = enc(rm), enc(rv)

        def fn(*args, weight=weight, bias=bias, eps=eps, running=running, use=use_input_stats, momentum=momentum, rm=rm, rv=rv):
            x, w, b = split_affine(args, weight, bias)
            m, v = (rm.clone(), rv.clone()) if running else (None, None)
            y = F.instance_norm(x, m, v, weight=w, bias=b, use_input_stats=use, momentum=momentum, eps=eps)
            if running and use:
                return (y, m, v)
            return y

        outs_diff = [True, False, False] if running and use_input_stats else None
        case("instance_norm/" + name, "instance_norm", params, affine_inputs(rand(*shape), c, weight, bias), fn, outs_diff)


def linear_cases():
    case("linear/[4 3] W [2 3] b [2]", "linear", {"bias": True}, [rand(4, 3), rand(2, 3), rand(2)], F.linear)
    case("linear/[2 3 5] W [4 5]", "linear", {"bias": False}, [rand(2, 3, 5), rand(4, 5)], lambda x, w: F.linear(x, w))


def attention_cases():
    def sdpa(q, k, v, mask=None, scale=None):
        scale = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
        s = q @ k.transpose(-2, -1) * scale
        if mask is not None:
            s = s + mask
        return torch.softmax(s, -1) @ v

    q, k, v = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 3)
    case("attention/[2 3 4] [2 5 4] [2 5 3]", "attention", {}, [q, k, v], sdpa)
    for l, s in [(4, 4), (3, 5)]:
        causal = torch.zeros(l, s, dtype=DT).masked_fill(~torch.ones(l, s, dtype=torch.bool).tril(), -math.inf)
        case("attention/causal L %d S %d" % (l, s), "attention", {"causal": True},
             [rand(2, l, 3), rand(2, s, 3), rand(2, s, 2)], lambda q, k, v, m=causal: sdpa(q, k, v, m))
    mask = rand(3, 4)
    case("attention/float mask [3 4] over [2 2 3 2]", "attention", {"mask": enc(mask)},
         [rand(2, 2, 3, 2), rand(2, 2, 4, 2), rand(2, 2, 4, 3)], lambda q, k, v: sdpa(q, k, v, mask))
    keep = torch.rand(2, 1, 3, 4) > 0.3
    keep[..., 0] = True
    add = torch.zeros(keep.shape, dtype=DT).masked_fill(~keep, -math.inf)
    case("attention/bool mask [2 1 3 4] scale 0.7", "attention",
         {"bool_mask": keep.reshape(-1).tolist(), "bool_shape": list(keep.shape), "scale": 0.7},
         [rand(2, 2, 3, 2), rand(2, 2, 4, 2), rand(2, 2, 4, 2)], lambda q, k, v: sdpa(q, k, v, add, 0.7))


batch_norm_cases()
layer_norm_cases()
group_norm_cases()
instance_norm_cases()
linear_cases()
attention_cases()
json.dump({"generator": "nn/testdata/gen_norm_ref.py", "torch": torch.__version__, "cases": CASES},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
