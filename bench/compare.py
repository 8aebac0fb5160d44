#!/usr/bin/env python3
"""The project's benchmarks beside torch and numpy, in one run, as a ratio table.

Run from the project root:

    python3 bench/compare.py                 # ours only, when torch/numpy are missing
    /usr/bin/python3 bench/compare.py        # Debian's python3 with python3-torch and python3-numpy
    /usr/bin/python3 bench/compare.py --threads 2 --only mlp,einsum
    /usr/bin/python3 bench/compare.py --threads 2 --busy --only gemm   # one core loaded

Our side is `go test -bench` with GOMAXPROCS=threads and -benchmem, -count N; each
figure is the minimum of the N runs (the machine is shared, so the minimum is the
least disturbed). The peers run in the same invocation through bench/peers.py with
OPENBLAS_CORETYPE=SkylakeX (OpenBLAS's AVX-512 kernel, which this OpenBLAS does not
pick by itself) when the CPU has AVX-512, and the same number of threads; their
configuration is printed. ratio = ours / peer time (peer / ours for GFLOP/s), so a
ratio above 1 means we are behind. The table is Markdown, for the README.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# workload, go package, -bench regexp, peer key, peer name, unit ("s" or "gflops")
W = [
    ("GEMM 1024 (GFLOP/s)", "./internal/gemm", "BenchmarkDgemm/1024/gemm", "gemm.1024", "numpy", "gflops"),
    ("float32 GEMM 1024 (GFLOP/s)", "./internal/gemm", "BenchmarkSgemm/1024/gemm", "sgemm.1024", "numpy float32", "gflops"),
    ("complex GEMM 512 (GFLOP/s)", "./internal/gemm", "BenchmarkZgemm/512/gemm", "zgemm.512", "numpy", "gflops"),
    ("complex64 GEMM 1024 (GFLOP/s)", "./internal/gemm", "BenchmarkCgemm/1024/gemm", "cgemm.1024", "numpy complex64", "gflops"),
    ("einsum ij,jk->ik 512", "./einsum", "BenchmarkEval/matmul512", "einsum.matmul512", "torch", "s"),
    ("einsum bij,bjk->bik 64x128", "./einsum", "BenchmarkEval/bmm64x128", "einsum.bmm64x128", "torch", "s"),
    ("einsum attention bhqd,bhkd->bhqk", "./einsum", "BenchmarkEval/attention", "einsum.attention", "torch", "s"),
    ("einsum tensor network tn4 16", "./einsum", "BenchmarkEval/tn4_16", "einsum.tn4_16", "torch", "s"),
    ("einsum gemv ij,j->i 2048", "./einsum", "BenchmarkEval/gemv_ij,j", "einsum.gemv2048", "numpy", "s"),
    ("einsum outer i,j->ij 2048", "./einsum", "BenchmarkEval/outer_i,j", "einsum.outer2048", "numpy", "s"),
    ("gradient of sum(einsum(ij,jk->ik)^2) 512", "./einsum", "BenchmarkGradient/forward\\+backward", "grad.einsum_sq512", "torch", "s"),
    ("MLP 784-256-256-10 b256: forward", "./hvp", "BenchmarkMLP/forward", "mlp.forward", "torch (no grad)", "s"),
    ("MLP: gradient", "./hvp", "BenchmarkMLP/gradient", "mlp.gradient", "torch", "s"),
    ("MLP: HVP", "./hvp", "BenchmarkMLP/hvp", "mlp.hvp", "torch double backward", "s"),
    ("MLP float32: forward", "./hvp", "BenchmarkMLP32/forward", "mlp32.forward", "torch float32 (no grad)", "s"),
    ("MLP float32: gradient", "./hvp", "BenchmarkMLP32/gradient", "mlp32.gradient", "torch float32", "s"),
    ("MLP float32: HVP", "./hvp", "BenchmarkMLP32/hvp", "mlp32.hvp", "torch float32 double backward", "s"),
    ("MLP: gradient, repeated (hvp.Gradient)", "./hvp", "BenchmarkMLP/gradient-reused", "mlp.gradient", "torch", "s"),
    ("MLP: HVP, repeated (hvp.Gradient)", "./hvp", "BenchmarkMLP/hvp-reused", "mlp.hvp", "torch double backward", "s"),
    ("MLP float32: gradient, repeated (hvp.Gradient)", "./hvp", "BenchmarkMLP32/gradient-reused", "mlp32.gradient", "torch float32", "s"),
    ("MLP float32: HVP, repeated (hvp.Gradient)", "./hvp", "BenchmarkMLP32/hvp-reused", "mlp32.hvp", "torch float32 double backward", "s"),
    ("max axis 0, 1024^2, fwd+bwd", "./reduce", "BenchmarkReduce/max/axis0/forward\\+backward", "reduce.max.axis0", "torch", "s"),
    ("logsumexp axis 1, 1024^2, fwd+bwd", "./reduce", "BenchmarkReduce/logsumexp/axis1/forward\\+backward", "reduce.logsumexp.axis1", "torch", "s"),
    ("exp of 1e6", "./elementwise", "BenchmarkExp/1000000/forward", "exp.1e6", "numpy", "s"),
    ("tanh of 1e6", "./elementwise", "BenchmarkTanh/1000000/forward", "tanh.1e6", "numpy", "s"),
    ("float32 exp of 1e6", "./elementwise", "BenchmarkExp/float32/1000000/forward", "exp32.1e6", "numpy float32", "s"),
    ("float32 tanh of 1e6", "./elementwise", "BenchmarkTanh/float32/1000000/forward", "tanh32.1e6", "numpy float32", "s"),
    # The two rows above drop each 4 MB output to the garbage collector; at GOMAXPROCS=2 the
    # runtime then grows the heap during collections and releases as many free pages, which
    # later outputs fault in again (88-149 faults a call). These two hand each output back to
    # the buffer pool, as a tape with recycling does: the kernel's own time at either setting.
    ("float32 exp of 1e6, output recycled", "./elementwise", "BenchmarkExp/float32/1000000/forward-recycled", "exp32.1e6", "numpy float32", "s"),
    ("float32 tanh of 1e6, output recycled", "./elementwise", "BenchmarkTanh/float32/1000000/forward-recycled", "tanh32.1e6", "numpy float32", "s"),
    ("permute 64^4 to (3,1,0,2)", "./permute", "BenchmarkMaterialize/permute-3102", "permute.3102", "numpy", "s"),
    ("cross_entropy gradient 256x1000", "./nn", "BenchmarkCrossEntropy/256x1000/fused/grad", "nn.cross_entropy", "torch", "s"),
    ("softmax gradient 256x1000", "./nn", "BenchmarkSoftmax/256x1000/softmax/grad", "nn.softmax", "torch", "s"),
    ("log_softmax gradient 256x1000", "./nn", "BenchmarkSoftmax/256x1000/log_softmax/grad", "nn.log_softmax", "torch", "s"),
    ("conv2d N32 64->64 56x56 3x3 pad 1: forward", "./nn", "BenchmarkConv2d/conv2d/N32_64x64_56x56_k3_p1/forward", "conv2d", "torch (no grad)", "s"),
    ("conv2d: forward+backward (x, weight)", "./nn", "BenchmarkConv2d/conv2d/N32_64x64_56x56_k3_p1/forward\\+backward", "conv2d.grad", "torch", "s"),
    ("conv2d stride 2: forward", "./nn", "BenchmarkConv2d/conv2d_s2/N32_64x64_56x56_k3_p1_s2/forward", "conv2d_s2", "torch (no grad)", "s"),
    ("conv2d stride 2: forward+backward", "./nn", "BenchmarkConv2d/conv2d_s2/N32_64x64_56x56_k3_p1_s2/forward\\+backward", "conv2d_s2.grad", "torch", "s"),
    ("conv1d N8 64->64 L16384 k3 pad 1: forward", "./nn", "BenchmarkConv2d/conv1d/N8_64x64_L16384_k3_p1/forward", "conv1d", "torch (no grad)", "s"),
    ("conv1d: forward+backward", "./nn", "BenchmarkConv2d/conv1d/N8_64x64_L16384_k3_p1/forward\\+backward", "conv1d.grad", "torch", "s"),
    ("max_pool2d N32 C64 56x56 k2 s2: forward+backward", "./nn", "BenchmarkPool2d/max_pool2d/k2s2/forward\\+backward", "pool.max_k2s2", "torch", "s"),
    ("max_pool2d k3 s2 pad 1: forward+backward", "./nn", "BenchmarkPool2d/max_pool2d/k3s2p1/forward\\+backward", "pool.max_k3s2p1", "torch", "s"),
    ("avg_pool2d k2 s2: forward+backward", "./nn", "BenchmarkPool2d/avg_pool2d/k2s2/forward\\+backward", "pool.avg_k2s2", "torch", "s"),
    ("float32 conv2d N8 64->64 56x56 3x3 pad 1: forward+backward", "./nn", "BenchmarkDTypeCNN/conv2d/N8_64x64_56x56_k3_p1/dtype=float32/forward\\+backward", "cnn32.conv2d", "torch float32", "s"),
    ("float32 conv2d N64 16->32 4x4 (small images): forward+backward", "./nn", "BenchmarkDTypeCNN/conv2d_small/N64_16x32_4x4_k3_p1/dtype=float32/forward\\+backward", "cnn32.conv2d_small", "torch float32", "s"),
    ("float32 max_pool2d N8 C64 56x56 k2 s2: forward+backward", "./nn", "BenchmarkDTypeCNN/max_pool2d/N8_64_56x56_k2s2/dtype=float32/forward\\+backward", "cnn32.max_k2s2", "torch float32", "s"),
    ("float32 avg_pool2d k3 s2 pad 1: forward+backward", "./nn", "BenchmarkDTypeCNN/avg_pool2d/N8_64_56x56_k3s2p1/dtype=float32/forward\\+backward", "cnn32.avg_k3s2p1", "torch float32", "s"),
    ("batch_norm N32 C64 56x56 train: forward+backward", "./nn", "BenchmarkBatchNorm/32x64x56x56/train/forward\\+backward", "layers.batch_norm", "torch", "s"),
    ("layer_norm 2048x768: forward+backward", "./nn", "BenchmarkLayerNorm/2048x768/forward\\+backward", "layers.layer_norm", "torch", "s"),
    ("linear 256x512x512 + bias: forward+backward", "./nn", "BenchmarkLinear/256x512x512/forward\\+backward", "layers.linear", "torch", "s"),
    ("causal attention 4x8x128x64: forward+backward", "./nn", "BenchmarkAttention/4x8x128x64/causal/forward\\+backward", "layers.attention", "torch (explicit formula)", "s"),
    ("Adam step of the digits CNN, batch 64 (examples/cnn)", "./examples/cnn", "BenchmarkAdamStep", "cnn.adam_step", "torch", "s"),
    ("cholesky 512", "./linalg", "BenchmarkOps/cholesky/forward", "linalg.cholesky", "torch", "s"),
    ("cholesky 512 fwd+bwd", "./linalg", "BenchmarkOps/cholesky/backward", "linalg.cholesky.grad", "torch", "s"),
    ("lu_factor 512", "./linalg", "BenchmarkOps/lu_factor/forward", "linalg.lu_factor", "torch", "s"),
    ("solve 512, 512 right-hand sides", "./linalg", "BenchmarkOps/solve/forward", "linalg.solve", "torch", "s"),
    ("eigvalsh 512", "./linalg", "BenchmarkOps/eigh/forward", "linalg.eigvalsh", "torch", "s"),
    ("eigvalsh 512 fwd+bwd", "./linalg", "BenchmarkOps/eigh/backward", "linalg.eigvalsh.grad", "torch", "s"),
    ("svdvals 512", "./linalg", "BenchmarkOps/svd/forward", "linalg.svdvals", "torch", "s"),
    ("svdvals 512 fwd+bwd", "./linalg", "BenchmarkOps/svd/backward", "linalg.svdvals.grad", "torch", "s"),
    ("scalar chain, 100,002 ops, record+backward", "./core", "BenchmarkScalarChain", "scalar.chain", "torch 0-d tensors", "s"),
    ("PINN loss gradient, 2-32-32-1 tanh, 1024 points", "./examples/pinn", "BenchmarkLossGradient", "pinn.gradient", "torch create_graph", "s"),
]


def anchored(rx):
    """-bench takes one regexp per level split at '/': anchor each level."""
    return "/".join("^" + p + "$" for p in rx.split("/"))


def go_bench(ws, threads, count, benchtime):
    out = {}
    for w in ws:
        cmd = ["go", "test", "-run", "^$", "-bench", anchored(w[2]), "-benchmem",
               "-count", str(count), "-benchtime", benchtime, w[1]]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, GOMAXPROCS=str(threads)))
        want = re.compile("^" + w[2].replace("\\+", "+").replace("+", "\\+") + r"(-\d+)?\s")
        ns, gf, by = [], [], []
        for line in r.stdout.splitlines():
            if not want.search(line):
                continue
            if m := re.search(r"([0-9.]+) ns/op", line):
                ns.append(float(m.group(1)))
            if m := re.search(r"([0-9.]+) GFLOP/s", line):
                gf.append(float(m.group(1)))
            if m := re.search(r"([0-9]+) B/op", line):
                by.append(int(m.group(1)))
        if not ns:
            print(f"# no result for {w[0]}: {' '.join(cmd)}\n{r.stdout[-400:]}{r.stderr[-400:]}", file=sys.stderr)
            continue
        out[w[0]] = {"s": min(ns) * 1e-9, "gflops": max(gf) if gf else None, "bytes": min(by) if by else None}
        print(f"# ours: {w[0]}: {min(ns) * 1e-6:.4g} ms", file=sys.stderr, flush=True)
    return out


def have_avx512():
    try:
        with open("/proc/cpuinfo") as fh:
            return "avx512f" in fh.read()
    except OSError:
        return False


def peers(ws, threads):
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return None, {}
    env = dict(os.environ)
    env.pop("OPENBLAS_L2_SIZE", None)
    if have_avx512():
        env["OPENBLAS_CORETYPE"] = "SkylakeX"
    if threads > 1:
        env["OMP_WAIT_POLICY"] = "PASSIVE"  # libgomp spinning beside OpenBLAS's threads stalls on 2 vCPUs
    js = os.path.join(tempfile.mkdtemp(), "peers.json")
    only = ",".join(w[3] for w in ws)
    r = subprocess.run([sys.executable, os.path.join(HERE, "peers.py"), "--threads", str(threads), "--json", js,
                        "--only", only], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print("# peers failed:\n" + r.stderr[-2000:], file=sys.stderr)
        return None, {}
    with open(js) as fh:
        d = json.load(fh)
    return d["config"], d["results"]


def fmt_time(s):
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def fmt_bytes(b):
    if b is None:
        return ""
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= k:
            return f"{b / k:.3g} {unit}"
    return f"{b} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1, help="GOMAXPROCS for ours, BLAS/torch threads for the peers")
    ap.add_argument("--count", type=int, default=5, help="go test -count; the minimum is reported")
    ap.add_argument("--benchtime", default="1s")
    ap.add_argument("--only", default="", help="comma-separated substrings of workload names or peer keys")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--busy", action="store_true",
                    help="run a busy-loop process (one core's worth of load) during all measurements")
    args = ap.parse_args()
    keys = [k for k in args.only.split(",") if k]
    ws = [w for w in W if not keys or any(k in w[0] or k in w[3] for k in keys)]
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if args.busy else None
    try:
        config, peer = (None, {}) if args.no_peers else peers(ws, args.threads)
        ours = go_bench(ws, args.threads, args.count, args.benchtime)
    finally:
        if busy:
            busy.kill()
            busy.wait()
    goversion = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    print(f"ours: {goversion}, GOMAXPROCS={args.threads}, minimum of {args.count} runs of -benchtime {args.benchtime}"
          + (", with a busy-loop process loading one core" if args.busy else ""))
    if config:
        ob = config.get("openblas", {})
        print(f"peers: torch {config['torch']}, numpy {config['numpy']}, OpenBLAS core {ob.get('core')} "
              f"({ob.get('config', '').strip()}), {ob.get('threads')} BLAS thread(s), torch threads "
              f"{config['torch_threads']}, OPENBLAS_CORETYPE={config['OPENBLAS_CORETYPE']}; minimum of the samples")
    else:
        print("peers: not run (needs a python3 with numpy and torch)")
    print()
    print("| workload | ours | bytes/op | peer | peer time | ratio |")
    print("|---|---|---|---|---|---|")
    ahead = total = 0
    for name, _, _, key, pname, unit in ws:
        o, p = ours.get(name), peer.get(key)
        if o is None:
            print(f"| {name} | (failed) | | {pname} | | |")
            continue
        if unit == "gflops":
            ov = f"{o['gflops']:.1f}"
            pv, ratio = "", None
            if p:
                # a complex multiply-add is 8 real flops
                fl = {"zgemm.512": 8 * 512 ** 3, "cgemm.1024": 8 * 1024 ** 3}.get(key, 2 * 1024 ** 3)
                pg = fl / p["min_s"] / 1e9
                pv, ratio = f"{pg:.1f}", pg / o["gflops"]
        else:
            ov = fmt_time(o["s"])
            pv, ratio = (fmt_time(p["min_s"]), o["s"] / p["min_s"]) if p else ("", None)
        rs = ""
        if ratio is not None:
            total += 1
            ahead += ratio <= 1.0
            rs = f"{ratio:.2f}" + (" **behind**" if ratio > 1.0 else "")
        print(f"| {name} | {ov} | {fmt_bytes(o['bytes'])} | {pname} | {pv} | {rs} |")
    if total:
        print(f"\n{ahead} of {total} workloads at or ahead of the peer")


if __name__ == "__main__":
    main()
