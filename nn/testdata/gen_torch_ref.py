#!/usr/bin/python3
"""Generate nn/testdata/torch_ref.json: PyTorch reference values and derivatives
for the ops of package nn, replayed by nn/torch_ref_test.go.

Run once from the module root (Debian's python3 with torch and numpy):

    /usr/bin/python3 nn/testdata/gen_torch_ref.py > nn/testdata/torch_ref.json

Each case holds the op's parameters, its inputs, PyTorch's outputs and, at a
random cotangent ybar (of each differentiable output) and a random direction v
(of each differentiable input):

    vjp = J^* ybar,   jvp = J v,   hvp = H_phi v  with  phi(x) = Re<ybar, f(x)>,

under PyTorch's complex convention (the pullback is the adjoint of the JVP under
Re<a, b>), computed with torch.autograd: jvp by differentiating the vjp with
respect to ybar (the double-backward trick), hvp by differentiating Re<vjp, v>
with respect to the inputs. Non-finite numbers are written as the strings
"nan", "inf" and "-inf"; complex tensors as interleaved [re, im] pairs.
"""

import json
import math
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(20240611)
DT = torch.float64
CDT = torch.complex128


def enc(t):
    t = t.detach()
    if t.is_complex():
        flat = torch.view_as_real(t.resolve_conj().contiguous()).reshape(-1).tolist()
        dtype = "complex128"
    else:
        flat = t.to(DT).reshape(-1).tolist()
        dtype = "float64"

    def num(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v

    return {"dtype": dtype, "shape": list(t.shape), "data": [num(v) for v in flat]}


def rand(*shape, dtype=DT):
    return torch.randn(*shape, dtype=dtype)


def inner(a, b):
    """Re<a, b> = Re sum conj(a) b."""
    if a.is_complex() or b.is_complex():
        return (a.conj() * b).real.sum()
    return (a * b).sum()


CASES = []


def case(name, op, params, inputs, fn, grad=None, outputs_diff=None):
    """Record a case. fn maps the input tensors to a tuple of outputs; grad[k]
    says whether input k is differentiable; outputs_diff[m] whether output m is."""
    grad = grad if grad is not None else [True] * len(inputs)
    xs = [x.clone().requires_grad_(g) for x, g in zip(inputs, grad)]
    outs = fn(*xs)
    if not isinstance(outs, tuple):
        outs = (outs,)
    outputs_diff = outputs_diff if outputs_diff is not None else [True] * len(outs)
    rec = {"name": name, "op": op, "params": params,
           "inputs": [dict(enc(x), grad=g) for x, g in zip(inputs, grad)],
           "outputs": [enc(o) for o in outs]}
    diff_in = [x for x, g in zip(xs, grad) if g]
    diff_out = [o for o, d in zip(outs, outputs_diff) if d]
    if diff_in and diff_out:
        ybar = [torch.randn_like(o) for o in diff_out]
        v = [torch.randn_like(x) for x in diff_in]
        ybar_var = [y.clone().requires_grad_(True) for y in ybar]
        g = torch.autograd.grad(diff_out, diff_in, grad_outputs=ybar_var, create_graph=True, allow_unused=True)
        g = [gi if gi is not None else torch.zeros_like(x) for gi, x in zip(g, diff_in)]
        s = sum(inner(gi, vi) for gi, vi in zip(g, v))
        jvp = torch.autograd.grad(s, ybar_var, retain_graph=True, allow_unused=True)
        jvp = [j if j is not None else torch.zeros_like(y) for j, y in zip(jvp, ybar)]
        if s.requires_grad:
            hvp = torch.autograd.grad(s, diff_in, allow_unused=True)
            hvp = [h if h is not None else torch.zeros_like(x) for h, x in zip(hvp, diff_in)]
        else:
            hvp = [torch.zeros_like(x) for x in diff_in]
        rec["ybar"] = [enc(y) for y in ybar]
        rec["v"] = [enc(x) for x in v]
        rec["vjp"] = [enc(x) for x in g]
        rec["jvp"] = [enc(x) for x in jvp]
        rec["hvp"] = [enc(x) for x in hvp]
    CASES.append(rec)


def class_index_cases():
    for name, shape, labels, kw in [
        ("mean", (4, 5), [0, 4, 2, 1], {}),
        ("sum smoothing", (4, 5), [3, 3, 0, 1], {"reduction": "sum", "label_smoothing": 0.2}),
        ("none weights ignore smoothing", (4, 5), [0, -100, 2, 1],
         {"reduction": "none", "weight": [1, 2, 0.5, 3, 1], "ignore_index": -100, "label_smoothing": 0.1}),
        ("mean weights ignore smoothing", (4, 5), [0, -100, 2, 1],
         {"weight": [1, 2, 0.5, 3, 1], "ignore_index": -100, "label_smoothing": 0.1}),
        ("one sample", (5,), [2], {}),
        ("k-dim weighted mean", (2, 3, 2), [0, 2, 1, 1], {"weight": [0.5, 1, 2]}),
        ("k-dim none", (2, 3, 2), [0, 2, 1, 1], {"reduction": "none"}),
        ("large logits", (2, 3), [1, 2], {}),
    ]:
        x = rand(*shape)
        if name == "large logits":
            x = x * 300
        tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
        target = torch.tensor(labels, dtype=torch.long).reshape(tshape)
        tk = dict(kw)
        if "weight" in tk:
            tk["weight"] = torch.tensor(tk["weight"], dtype=DT)
        case("cross_entropy/" + name, "cross_entropy", dict(kw, labels=labels), [x],
             lambda x, t=target, k=tk: F.cross_entropy(x, t, **k))
    for name, shape, kw in [
        ("mean", (4, 5), {}),
        ("none weights smoothing", (4, 5), {"reduction": "none", "weight": [1, 2, 0.5, 3, 1], "label_smoothing": 0.3}),
        ("k-dim sum", (2, 3, 2), {"reduction": "sum"}),
    ]:
        x, t = rand(*shape), torch.rand(*shape, dtype=DT)
        tk = dict(kw)
        if "weight" in tk:
            tk["weight"] = torch.tensor(tk["weight"], dtype=DT)
        case("cross_entropy_probs/" + name, "cross_entropy_probs", kw, [x, t],
             lambda x, t, k=tk: F.cross_entropy(x, t, **k))
    for name, shape, labels, kw in [
        ("mean", (4, 5), [0, 4, 2, 1], {}),
        ("none weights ignore", (4, 5), [0, 4, 2, 1], {"reduction": "none", "weight": [1, 2, 0.5, 3, 1], "ignore_index": 4}),
        ("k-dim weighted mean", (2, 3, 2), [0, 2, 1, 1], {"weight": [0.5, 1, 2]}),
    ]:
        x = torch.log_softmax(rand(*shape), dim=1 if len(shape) > 1 else 0)
        tshape = (shape[0],) + shape[2:]
        target = torch.tensor(labels, dtype=torch.long).reshape(tshape)
        tk = dict(kw)
        if "weight" in tk:
            tk["weight"] = torch.tensor(tk["weight"], dtype=DT)
        case("nll_loss/" + name, "nll_loss", dict(kw, labels=labels), [x],
             lambda x, t=target, k=tk: F.nll_loss(x, t, **k))


def pointwise_loss_cases():
    for red in ["mean", "sum", "none"]:
        case("mse_loss/" + red, "mse_loss", {"reduction": red}, [rand(3, 4), rand(3, 4)],
             lambda x, y, r=red: F.mse_loss(x, y, reduction=r))
    for delta, red in [(0.8, "mean"), (0.8, "none"), (1.0, "sum")]:
        x, y = rand(3, 4), rand(3, 4)
        # keep |x - y| away from delta, where the second derivative jumps
        d = x - y
        near = (d.abs() - delta).abs() < 0.05
        x = torch.where(near, y + torch.sign(d) * (delta + 0.1), x)
        case("huber_loss/%g %s" % (delta, red), "huber_loss", {"delta": delta, "reduction": red}, [x, y],
             lambda x, y, dl=delta, r=red: F.huber_loss(x, y, reduction=r, delta=dl))
    case("binary_cross_entropy_with_logits/mean", "binary_cross_entropy_with_logits", {},
         [rand(3, 4), torch.rand(3, 4, dtype=DT)], lambda x, y: F.binary_cross_entropy_with_logits(x, y))
    pw, w = torch.rand(4, dtype=DT) * 2.5 + 0.5, torch.rand(3, 1, dtype=DT) * 1.5 + 0.5
    case("binary_cross_entropy_with_logits/pos_weight weight sum", "binary_cross_entropy_with_logits",
         {"reduction": "sum", "pos_weight": enc(pw), "bce_weight": enc(w)},
         [rand(3, 4), torch.rand(3, 4, dtype=DT)],
         lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction="sum"))
    case("binary_cross_entropy_with_logits/large none", "binary_cross_entropy_with_logits", {"reduction": "none"},
         [rand(2, 3) * 40, torch.rand(2, 3, dtype=DT)],
         lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="none"))


def scan_cases():
    case("cumsum/last axis", "cumsum", {"axis": -1}, [rand(3, 4)], lambda x: torch.cumsum(x, -1))
    case("cumsum/complex axis 1", "cumsum", {"axis": 1}, [rand(2, 3, 2, dtype=CDT)], lambda x: torch.cumsum(x, 1))
    z = rand(3, 5)
    z[0, 1] = 0
    z[1, 1] = 0
    z[1, 3] = 0
    z[2, 4] = 0
    case("cumprod/zeros", "cumprod", {"axis": 1}, [z], lambda x: torch.cumprod(x, 1))
    case("cumprod/axis 0", "cumprod", {"axis": 0}, [rand(4, 3)], lambda x: torch.cumprod(x, 0))
    zc = rand(2, 4, dtype=CDT)
    zc[0, 2] = 0
    case("cumprod/complex zeros", "cumprod", {"axis": -1}, [zc], lambda x: torch.cumprod(x, -1))
    big = rand(3, 5)
    big[1, 2], big[2, 0] = 700, -700
    case("logcumsumexp/large", "logcumsumexp", {"axis": 1}, [big], lambda x: torch.logcumsumexp(x, 1))
    case("logcumsumexp/axis 0", "logcumsumexp", {"axis": 0}, [rand(4, 2, 3)], lambda x: torch.logcumsumexp(x, 0))

    def scan(a, b, axis, reverse):
        a, b = a.movedim(axis, 0), b.movedim(axis, 0)
        n = a.shape[0]
        h = [None] * n
        order = range(n - 1, -1, -1) if reverse else range(n)
        prev = None
        for j in order:
            if prev is None:
                h[j] = b[j]
            else:
                coef = a[j + 1] if reverse else a[j]
                h[j] = coef * h[prev] + b[j]
            prev = j
        return torch.stack(h).movedim(0, axis)

    case("linear_scan/axis 1", "linear_scan", {"axis": 1, "reverse": False}, [rand(2, 4, 3), rand(2, 4, 3)],
         lambda a, b: scan(a, b, 1, False))
    case("linear_scan/reverse complex", "linear_scan", {"axis": 0, "reverse": True},
         [rand(4, 2, dtype=CDT), rand(4, 2, dtype=CDT)], lambda a, b: scan(a, b, 0, True))


def matmul_cases():
    for name, sa, sb, dt in [
        ("1d 1d", (3,), (3,), DT), ("2d 2d", (2, 3), (3, 4), DT), ("1d 3d", (3,), (2, 3, 4), DT),
        ("3d 1d", (2, 2, 3), (3,), DT), ("broadcast", (2, 1, 2, 3), (3, 3, 4), DT),
        ("2d 3d complex", (2, 3), (2, 3, 2), CDT),
    ]:
        case("matmul/" + name, "matmul", {}, [rand(*sa, dtype=dt), rand(*sb, dtype=dt)], lambda a, b: a @ b)


def away(x, bounds, margin=0.05):
    for b in bounds:
        b = torch.as_tensor(b, dtype=DT).expand_as(x)
        d = x - b
        x = torch.where(d.abs() < margin, b + torch.sign(d) * 0.1, x)
    return x


def clamp_cases():
    x = away(rand(3, 4), [-0.5, 0.7])
    case("clamp/scalar", "clamp", {"lo": -0.5, "hi": 0.7}, [x], lambda x: torch.clamp(x, -0.5, 0.7))
    lo, hi = torch.rand(4, dtype=DT) * -1.3 - 0.2, torch.rand(3, 1, dtype=DT) * 1.3 + 0.2
    lo[1] = 2.0  # lo > hi: y = hi
    x = away(rand(3, 4), [lo, hi])
    case("clamp_tensor/broadcast", "clamp_tensor", {}, [x, lo, hi], lambda x, lo, hi: torch.clamp(x, lo, hi))
    # x exactly at the bounds: the gradient goes to x (PyTorch's convention).
    xb = torch.tensor([-1.0, -0.5, 0.0, 0.7, 2.0], dtype=DT)
    case("clamp/at bounds", "clamp", {"lo": -0.5, "hi": 0.7}, [xb], lambda x: torch.clamp(x, -0.5, 0.7))


def sort_cases():
    ties = torch.tensor([[1, 3, 3, 2, 3, -1, 1], [0.5, 0.5, -2, 4, 4, 0.5, 1]], dtype=DT)
    for desc in [False, True]:
        case("sort/ties %s" % ("descending" if desc else "ascending"), "sort", {"axis": 1, "descending": desc}, [ties],
             lambda x, d=desc: tuple(o.to(DT) if i == 1 else o for i, o in enumerate(torch.sort(x, dim=1, descending=d, stable=True))),
             outputs_diff=[True, False])
    case("sort/axis 0", "sort", {"axis": 0, "descending": False}, [rand(4, 3)],
         lambda x: tuple(o.to(DT) if i == 1 else o for i, o in enumerate(torch.sort(x, dim=0, stable=True))),
         outputs_diff=[True, False])
    nan = torch.tensor([2.0, float("nan"), -1.0, 5.0], dtype=DT)
    case("sort/nan", "sort", {"axis": 0, "descending": False}, [nan],
         lambda x: tuple(o.to(DT) if i == 1 else o for i, o in enumerate(torch.sort(x, dim=0, stable=True))),
         grad=[False], outputs_diff=[True, False])
    for k, largest in [(2, True), (3, False)]:
        case("topk/k %d %s" % (k, "largest" if largest else "smallest"), "topk", {"k": k, "axis": -1, "largest": largest},
             [rand(3, 5)], lambda x, k=k, l=largest: tuple(o.to(DT) if i == 1 else o
                                                        for i, o in enumerate(torch.topk(x, k, dim=-1, largest=l))),
             outputs_diff=[True, False])


def index_cases():
    x = torch.tensor([[1, 5, 2, 5], [7, 0, float("nan"), 7], [-1, -3, -3, 0]], dtype=DT)
    for op, f in [("argmax", torch.argmax), ("argmin", torch.argmin)]:
        for axis, keep in [(1, False), (0, True)]:
            case("%s/axis %d" % (op, axis), op, {"axis": axis, "keepdim": keep}, [x],
                 lambda x, f=f, a=axis, k=keep: f(x, dim=a, keepdim=k).to(DT), grad=[False], outputs_diff=[False])
    labels = torch.tensor([[0, 3], [2, 1]], dtype=torch.long)
    for c in [4, -1]:
        case("one_hot/%d classes" % c, "one_hot", {"num_classes": c}, [labels.to(DT)],
             lambda t, c=c: F.one_hot(t.to(torch.long), c).to(DT), grad=[False], outputs_diff=[False])


def softmax_cases():
    """softmax and log_softmax along several axes, float64 only: torch 1.13 has no
    complex kernel for either ("softmax_lastdim_kernel_impl" not implemented for
    'ComplexDouble'). Drawn after every other case, so that adding them left the
    earlier cases' inputs unchanged."""
    big = rand(2, 3)
    big[0, 0], big[0, 1], big[1, 2] = 799, 800, -800
    minf = rand(2, 4)
    minf[0, 2] = float("-inf")
    for name, x, axis in [
        ("last axis", rand(3, 4), -1),
        ("axis 0", rand(3, 4), 0),
        ("middle axis", rand(2, 3, 4), 1),
        ("1d", rand(5), 0),
        ("large entries", big, 1),
        ("-inf entry", minf, 1),
    ]:
        for op, f in [("softmax", torch.softmax), ("log_softmax", torch.log_softmax)]:
            case("%s/%s" % (op, name), op, {"axis": axis}, [x], lambda x, f=f, a=axis: f(x, dim=a))


class_index_cases()
pointwise_loss_cases()
scan_cases()
matmul_cases()
clamp_cases()
sort_cases()
index_cases()
softmax_cases()
json.dump({"generator": "nn/testdata/gen_torch_ref.py", "torch": torch.__version__, "cases": CASES},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
