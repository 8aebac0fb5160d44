#!/usr/bin/env python3
"""Peer timings for bench/compare.py: torch and numpy on the workloads of the project's
Go benchmarks, float64 (GEMM also in float32 and complex64, the MLP, exp/tanh and the CNN layers also in float32), CPU. Run with Debian's python3 (python3-numpy, python3-torch).

    python3 bench/peers.py --threads 1 --json out.json [--only PREFIX,...]

--threads sets OPENBLAS_NUM_THREADS / OMP_NUM_THREADS before numpy and torch load,
and torch.set_num_threads. The OpenBLAS kernel is whatever OPENBLAS_CORETYPE selects;
compare.py sets SkylakeX (the AVX-512 kernel) on a CPU with AVX-512. The JSON holds
the configuration (versions, OpenBLAS core name and threads) and, per workload, the
minimum and median seconds of the samples.
"""
import argparse
import ctypes
import json
import math
import os
import platform
import statistics
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--json", required=True)
ap.add_argument("--only", default="")
ap.add_argument("--target", type=float, default=0.5, help="seconds of samples per workload")
args = ap.parse_args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(args.threads)

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(args.threads)
f64 = torch.float64
rng = np.random.default_rng(0)
torch.manual_seed(0)
ONLY = [p for p in args.only.split(",") if p]
RESULTS = {}


def openblas():
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
    except OSError as e:
        return {"error": str(e)}
    lib.openblas_get_corename.restype = ctypes.c_char_p
    lib.openblas_get_config.restype = ctypes.c_char_p
    return {"core": lib.openblas_get_corename().decode(), "config": lib.openblas_get_config().decode(),
            "threads": lib.openblas_get_num_threads()}


def bench(name, fn):
    """Minimum and median over samples of fn; calls under 2 ms are batched."""
    if ONLY and not any(name.startswith(p) for p in ONLY):
        return
    for _ in range(2):
        fn()
    t = time.perf_counter()
    fn()
    t1 = max(time.perf_counter() - t, 1e-9)
    inner = max(1, int(2e-3 / t1))
    reps = int(min(41, max(7, args.target / (t1 * inner))))
    s = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        s.append((time.perf_counter() - t) / inner)
    RESULTS[name] = {"min_s": min(s), "median_s": statistics.median(s)}
    print(f"{name:<32s} min {min(s):.4e} s  median {statistics.median(s):.4e} s", flush=True)


def randn(*shape, grad=False):
    return torch.randn(*shape, dtype=f64, requires_grad=grad)


def gemm():
    a, b = rng.standard_normal((1024, 1024)), rng.standard_normal((1024, 1024))
    bench("gemm.1024", lambda: a @ b)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    bench("sgemm.1024", lambda: a32 @ b32)
    z = rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))
    bench("zgemm.512", lambda: z @ z)
    c64 = (a + 1j * b).astype(np.complex64)
    bench("cgemm.1024", lambda: c64 @ c64)


def einsum():
    for name, spec, shapes, lib in [
        ("matmul512", "ij,jk->ik", [(512, 512)] * 2, "torch"),
        ("bmm64x128", "bij,bjk->bik", [(64, 128, 128)] * 2, "torch"),
        ("attention", "bhqd,bhkd->bhqk", [(8, 8, 128, 64)] * 2, "torch"),
        ("tn4_16", "abc,cde,efa,bdf->", [(16, 16, 16)] * 4, "torch"),
        ("gemv2048", "ij,j->i", [(2048, 2048), (2048,)], "numpy"),
        ("outer2048", "i,j->ij", [(2048,), (2048,)], "numpy"),
    ]:
        ops = [rng.standard_normal(s) for s in shapes]
        if lib == "torch":
            t = [torch.from_numpy(o) for o in ops]
            bench("einsum." + name, lambda: torch.einsum(spec, *t))
        else:
            bench("einsum." + name, lambda: np.einsum(spec, *ops, optimize=True))


def grad():
    A, B = randn(512, 512, grad=True), randn(512, 512, grad=True)
    bench("grad.einsum_sq512", lambda: torch.autograd.grad((torch.einsum("ij,jk->ik", A, B) ** 2).sum(), (A, B)))


def mlp(dt=f64, key="mlp"):
    """The MLP of hvp's BenchmarkMLP (dt float64) and BenchmarkMLP32 (dt float32, key mlp32)."""
    sizes = [784 * 256, 256, 256 * 256, 256, 256 * 10, 10]
    X = randn(256, 784).to(dt)
    Y = torch.nn.functional.one_hot(torch.randint(0, 10, (256,)), 10).to(dt)

    def unflat(th):
        p = torch.split(th, sizes)
        return p[0].view(784, 256), p[1], p[2].view(256, 256), p[3], p[4].view(256, 10), p[5]

    def loss(W1, b1, W2, b2, W3, b3):
        h = torch.tanh(torch.tanh(X @ W1 + b1) @ W2 + b2) @ W3 + b3
        return (torch.logsumexp(h, 1) - (h * Y).sum(1)).mean()

    theta = (torch.randn(sum(sizes), dtype=dt) * 0.05).requires_grad_(True)
    Ws = [p.detach().clone().requires_grad_(True) for p in unflat(theta)]
    v = torch.randn(sum(sizes), dtype=dt)

    def fwd():
        with torch.no_grad():
            return loss(*Ws)

    def hvp():
        g = torch.autograd.grad(loss(*unflat(theta)), theta, create_graph=True)[0]
        return torch.autograd.grad(g @ v, theta)[0]

    bench(key + ".forward", fwd)
    bench(key + ".gradient", lambda: torch.autograd.grad(loss(*Ws), Ws))
    bench(key + ".hvp", hvp)


def mlp32():
    mlp(torch.float32, "mlp32")


def reduce():
    X = torch.from_numpy(rng.standard_normal((1024, 1024))).requires_grad_(True)
    g = torch.ones(1024, dtype=f64)
    bench("reduce.max.axis0", lambda: torch.autograd.grad(X.max(0).values, X, g))
    bench("reduce.logsumexp.axis1", lambda: torch.autograd.grad(torch.logsumexp(X, 1), X, g))


def elementwise():
    x = rng.standard_normal(1_000_000)
    bench("exp.1e6", lambda: np.exp(x))
    bench("tanh.1e6", lambda: np.tanh(x))
    x32 = x.astype(np.float32)
    bench("exp32.1e6", lambda: np.exp(x32))
    bench("tanh32.1e6", lambda: np.tanh(x32))


def permute():
    a = rng.standard_normal((64, 64, 64, 64))
    bench("permute.3102", lambda: np.ascontiguousarray(a.transpose(3, 1, 0, 2)))
    bench("copy.64^4", lambda: a.copy())


def nn():
    x = randn(256, 1000, grad=True)
    y = torch.randint(0, 1000, (256,))
    bench("nn.cross_entropy", lambda: torch.autograd.grad(torch.nn.functional.cross_entropy(x, y), x))
    g = torch.randn(256, 1000, dtype=f64)
    bench("nn.softmax", lambda: torch.autograd.grad(torch.softmax(x, 1), x, g))
    bench("nn.log_softmax", lambda: torch.autograd.grad(torch.log_softmax(x, 1), x, g))


def conv():
    """The shapes of nn's BenchmarkConv2d: forward without grad, and forward+backward to x and weight."""
    F = torch.nn.functional
    for name, xs, ws, fn, kw in [
        ("conv2d", (32, 64, 56, 56), (64, 64, 3, 3), F.conv2d, {"padding": 1}),
        ("conv2d_s2", (32, 64, 56, 56), (64, 64, 3, 3), F.conv2d, {"padding": 1, "stride": 2}),
        ("conv1d", (8, 64, 16384), (64, 64, 3), F.conv1d, {"padding": 1}),
    ]:
        x, w = randn(*xs, grad=True), randn(*ws, grad=True)
        with torch.no_grad():
            ybar = torch.randn_like(fn(x, w, **kw))

        def fwd(fn=fn, x=x, w=w, kw=kw):
            with torch.no_grad():
                return fn(x, w, **kw)

        bench(name, fwd)
        bench(name + ".grad", lambda fn=fn, x=x, w=w, kw=kw, ybar=ybar: torch.autograd.grad(fn(x, w, **kw), (x, w), ybar))


def pool():
    """nn's BenchmarkPool2d: a float64 [32 64 56 56] input, forward and backward from a ones cotangent."""
    F = torch.nn.functional
    x = randn(32, 64, 56, 56, grad=True)
    seed = torch.ones(32, 64, 28, 28, dtype=f64)
    bench("pool.max_k2s2", lambda: torch.autograd.grad(F.max_pool2d(x, 2), x, seed))
    bench("pool.max_k3s2p1", lambda: torch.autograd.grad(F.max_pool2d(x, 3, 2, 1), x, seed))
    bench("pool.avg_k2s2", lambda: torch.autograd.grad(F.avg_pool2d(x, 2), x, seed))


def cnn32():
    """nn's BenchmarkDTypeCNN in float32: forward+backward to every input from a random cotangent."""
    F = torch.nn.functional
    f32 = torch.float32
    for name, shapes, fn in [
        ("cnn32.conv2d", [(8, 64, 56, 56), (64, 64, 3, 3)], lambda x, w: F.conv2d(x, w, padding=1)),
        ("cnn32.conv2d_small", [(64, 16, 4, 4), (32, 16, 3, 3)], lambda x, w: F.conv2d(x, w, padding=1)),
        ("cnn32.max_k2s2", [(8, 64, 56, 56)], lambda x: F.max_pool2d(x, 2)),
        ("cnn32.avg_k3s2p1", [(8, 64, 56, 56)], lambda x: F.avg_pool2d(x, 3, 2, 1)),
    ]:
        xs = [torch.randn(*s, dtype=f32, requires_grad=True) for s in shapes]
        with torch.no_grad():
            ybar = torch.randn_like(fn(*xs))
        bench(name, lambda fn=fn, xs=xs, ybar=ybar: torch.autograd.grad(fn(*xs), xs, ybar))


def layers():
    """nn's layer benchmarks (nn/norm_bench_test.go), forward and backward from a random cotangent."""
    F = torch.nn.functional
    x, gamma, beta = randn(32, 64, 56, 56, grad=True), randn(64, grad=True), randn(64, grad=True)
    rm, rv, ybar = torch.zeros(64, dtype=f64), torch.ones(64, dtype=f64), torch.randn(32, 64, 56, 56, dtype=f64)
    bench("layers.batch_norm", lambda: torch.autograd.grad(
        F.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5), (x, gamma, beta), ybar))
    lx, lw, lb, lybar = randn(2048, 768, grad=True), randn(768, grad=True), randn(768, grad=True), torch.randn(2048, 768, dtype=f64)
    bench("layers.layer_norm", lambda: torch.autograd.grad(F.layer_norm(lx, (768,), lw, lb, 1e-5), (lx, lw, lb), lybar))
    wx, ww, wb, wybar = randn(256, 512, grad=True), randn(512, 512, grad=True), randn(512, grad=True), torch.randn(256, 512, dtype=f64)
    bench("layers.linear", lambda: torch.autograd.grad(F.linear(wx, ww, wb), (wx, ww, wb), wybar))
    q, k, v = randn(4, 8, 128, 64, grad=True), randn(4, 8, 128, 64, grad=True), randn(4, 8, 128, 64, grad=True)
    aybar = torch.randn(4, 8, 128, 64, dtype=f64)
    causal = torch.zeros(128, 128, dtype=f64).masked_fill(~torch.ones(128, 128, dtype=torch.bool).tril(), -math.inf)
    # torch 1.13 has no F.scaled_dot_product_attention: the explicit formula.
    bench("layers.attention", lambda: torch.autograd.grad(
        torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(64) + causal, -1) @ v, (q, k, v), aybar))


def cnn():
    """One Adam step of examples/cnn's digits CNN (BenchmarkAdamStep): a minibatch of 64
    8x8 images, batch norm in training, cross-entropy, backward, torch.optim.Adam
    (foreach=False, the path package optim follows), float64."""
    import gzip
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "cnn", "testdata", "digits.csv.gz")
    with gzip.open(here, "rt") as f:
        data = np.loadtxt(f, delimiter=",")
    x = torch.tensor(data[:64, :64] / 16, dtype=f64).reshape(64, 1, 8, 8)
    y = torch.tensor(data[:64, 64], dtype=torch.int64)
    nn_ = torch.nn
    model = nn_.Sequential(
        nn_.Conv2d(1, 16, 3, padding=1, bias=False), nn_.BatchNorm2d(16), nn_.ReLU(), nn_.MaxPool2d(2),
        nn_.Conv2d(16, 32, 3, padding=1, bias=False), nn_.BatchNorm2d(32), nn_.ReLU(), nn_.MaxPool2d(2),
        nn_.Flatten(), nn_.Linear(128, 10)).double()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    bench("cnn.adam_step", step)


def linalg():
    n = 512
    a = randn(n, n)
    spd = a @ a.T + n * torch.eye(n, dtype=f64)
    bench("linalg.cholesky", lambda: torch.linalg.cholesky(spd))
    bench("linalg.lu_factor", lambda: torch.linalg.lu_factor(a))
    bench("linalg.solve", lambda: torch.linalg.solve(a, a))
    bench("linalg.eigvalsh", lambda: torch.linalg.eigvalsh(spd))
    bench("linalg.svdvals", lambda: torch.linalg.svdvals(a))
    s = spd.clone().requires_grad_(True)
    ag = a.clone().requires_grad_(True)
    bench("linalg.cholesky.grad", lambda: torch.autograd.grad(torch.linalg.cholesky(s).sum(), s))
    bench("linalg.eigvalsh.grad", lambda: torch.autograd.grad(torch.linalg.eigvalsh(s).sum(), s))
    bench("linalg.svdvals.grad", lambda: torch.autograd.grad(torch.linalg.svdvals(ag).sum(), ag))


def scalar_chain():
    if ONLY and not any("scalar".startswith(p) or p.startswith("scalar") for p in ONLY):
        return
    x0 = torch.tensor(0.5, dtype=f64, requires_grad=True)

    def chain():
        x = x0
        for _ in range(33334):  # 3 ops a step: 100,002 recorded ops
            x = torch.sin(x * 1.0001 + 0.0001)
        return torch.autograd.grad(x, x0)

    bench("scalar.chain", chain)


def pinn():
    """The loss gradient of examples/pinn: a 2-32-32-1 tanh network, the Laplacian at
    1024 interior points from two create_graph gradients, u at 256 boundary points."""
    if ONLY and not any(p.startswith("pinn") or "pinn".startswith(p) for p in ONLY):
        return
    widths = [2, 32, 32, 1]
    Ws = []
    for i in range(3):
        a = (6 / (widths[i] + widths[i + 1])) ** 0.5
        Ws.append((torch.rand(widths[i], widths[i + 1], dtype=f64) * 2 - 1).mul(a).requires_grad_())
        Ws.append(torch.zeros(widths[i + 1], dtype=f64, requires_grad=True))
    P = torch.rand(1024, 2, dtype=f64)
    Q = torch.rand(256, 2, dtype=f64)
    f = 2 * torch.pi ** 2 * torch.sin(torch.pi * P[:, 0]) * torch.sin(torch.pi * P[:, 1])

    def net(X):
        h = torch.tanh(X @ Ws[0] + Ws[1])
        h = torch.tanh(h @ Ws[2] + Ws[3])
        return h @ Ws[4] + Ws[5]

    def step():
        X = P.clone().requires_grad_()
        g, = torch.autograd.grad(net(X).sum(), X, create_graph=True)
        uxx, = torch.autograd.grad(g[:, 0].sum(), X, create_graph=True)
        uyy, = torch.autograd.grad(g[:, 1].sum(), X, create_graph=True)
        r = uxx[:, 0] + uyy[:, 1] + f
        loss = (r ** 2).mean() + (net(Q) ** 2).mean()
        return torch.autograd.grad(loss, Ws)

    bench("pinn.gradient", step)


config = {"python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
          "torch_threads": torch.get_num_threads(), "openblas": openblas(),
          "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE")}
print("# peers:", json.dumps(config), flush=True)
for section in (gemm, einsum, grad, mlp, mlp32, reduce, elementwise, permute, nn, conv, pool, cnn32, layers, cnn, linalg, scalar_chain, pinn):
    section()
with open(args.json, "w") as fh:
    json.dump({"config": config, "results": RESULTS}, fh, indent=1)
