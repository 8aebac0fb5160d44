#!/usr/bin/python3
"""Generate nn/testdata/single_ref.json: PyTorch's float32 (and complex64) reference
values and derivatives for the ops of package nn, replayed by
nn/single_ref_test.go.

Run once from the module root (Debian's python3 with torch and numpy):

    /usr/bin/python3 nn/testdata/gen_single_ref.py > nn/testdata/single_ref.json

It runs the four double-precision generators (gen_torch_ref.py, gen_norm_ref.py,
gen_conv_ref.py, gen_pool_ref.py) with float64 replaced by float32 and complex128
by complex64 throughout their source: the same cases, inputs drawn and rounded in
single precision, and every output, VJP, JVP and HVP computed by torch.autograd
in single precision (see gen_torch_ref.py for what each holds). The cases are
grouped by generator ("torch", "norm", "conv", "pool"), so that the replay
resolves each with the resolver of its double-precision twin; of the conv and
pool cases, every second one is kept (and those with ties or non-finite
entries). Each number is written in the shortest form that reads back as the
same float32.
"""

import contextlib
import io
import json
import math
import os
import sys
import types

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def single(name):
    """Run generator name (a module of HERE) in single precision; return its cases."""
    path = os.path.join(HERE, name + ".py")
    with open(path) as f:
        src = f.read().replace("float64", "float32").replace("complex128", "complex64")
    # gen_norm_ref.py checks its affine group_norm against F.group_norm to 1e-12.
    src = src.replace("rtol=1e-12, atol=1e-12", "rtol=1e-5, atol=1e-5")
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod  # gen_conv_ref and gen_pool_ref import gen_torch_ref as ref
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, path, "exec"), mod.__dict__)
    return json.loads(out.getvalue())["cases"]


def shortest(x):
    """x with every float32 number replaced by its shortest decimal form."""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return x
        return float(str(np.float32(x)))
    if isinstance(x, list):
        return [shortest(v) for v in x]
    if isinstance(x, dict):
        return {k: shortest(v) for k, v in x.items()}
    return x


def every_other(cases):
    """Every second case, and every case with ties or non-finite entries: the conv
    and pool references are large (the file stays under 400 kB)."""
    special = ("ties", "nan", "inf")
    return [c for i, c in enumerate(cases) if i % 2 == 0 or any(w in c["name"] for w in special)]


files = {}
for key, name, keep in [("torch", "gen_torch_ref", list), ("norm", "gen_norm_ref", list),
                        ("conv", "gen_conv_ref", every_other), ("pool", "gen_pool_ref", every_other)]:
    if "gen_torch_ref" in sys.modules:
        sys.modules["gen_torch_ref"].CASES.clear()  # conv and pool append to ref.CASES
    files[key] = shortest(keep(single(name)))

json.dump({"generator": "nn/testdata/gen_single_ref.py", "torch": torch.__version__, "files": files},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
