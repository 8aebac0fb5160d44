#!/usr/bin/python3
"""Generate nn/testdata/conv_ref.json: PyTorch reference values and derivatives
of the convolutions of package nn, replayed by nn/conv_ref_test.go.

Run once from the module root (Debian's python3 with torch):

    /usr/bin/python3 nn/testdata/gen_conv_ref.py > nn/testdata/conv_ref.json

Each case holds the op's parameters, its inputs (x, weight and perhaps bias),
PyTorch's output and, at a random cotangent ybar and a random direction v, the
vjp, jvp and hvp computed as in gen_torch_ref.py (whose case() it reuses).
The convolutions run as nn.Conv1d/2d/3d modules (functional_call with the
weight and bias as inputs), so that padding_mode pads as PyTorch's modules do;
the transposed ones as F.conv_transpose1d/2d/3d.
"""

import json
import os
import sys

import torch
import torch.nn as tnn
import torch.nn.functional as F
from torch.nn.utils.stateless import functional_call

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
_stdout = sys.stdout
sys.stdout = open(os.devnull, "w")  # gen_torch_ref prints its own cases on import
import gen_torch_ref as ref  # noqa: E402
sys.stdout.close()
sys.stdout = _stdout

torch.manual_seed(20261127)
ref.CASES.clear()
DT = torch.float64
MODULES = {1: tnn.Conv1d, 2: tnn.Conv2d, 3: tnn.Conv3d}
TRANSPOSED = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def conv(name, x_shape, w_shape, bias=False, stride=1, padding=0, dilation=1, groups=1, padding_mode="zeros"):
    nd = len(x_shape) - 2
    x, w = torch.randn(*x_shape, dtype=DT), torch.randn(*w_shape, dtype=DT)
    cout, k = w_shape[0], w_shape[2:]
    m = MODULES[nd](x_shape[1], cout, k, stride=stride, padding=padding, dilation=dilation, groups=groups,
                    bias=bias, padding_mode=padding_mode).to(DT)
    inputs = [x, w] + ([torch.randn(cout, dtype=DT)] if bias else [])

    def fn(x, w, b=None):
        params = {"weight": w}
        if b is not None:
            params["bias"] = b
        return functional_call(m, params, (x,))

    params = dict(nd=nd, transposed=False, stride=stride, padding=padding, dilation=dilation, groups=groups,
                  padding_mode=padding_mode)
    ref.case("conv%dd/%s" % (nd, name), "conv%dd" % nd, params, inputs, fn)


def conv_t(name, x_shape, w_shape, bias=False, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    nd = len(x_shape) - 2
    x, w = torch.randn(*x_shape, dtype=DT), torch.randn(*w_shape, dtype=DT)
    cout = w_shape[1] * groups
    inputs = [x, w] + ([torch.randn(cout, dtype=DT)] if bias else [])

    def fn(x, w, b=None):
        return TRANSPOSED[nd](x, w, b, stride=stride, padding=padding, output_padding=output_padding,
                              groups=groups, dilation=dilation)

    params = dict(nd=nd, transposed=True, stride=stride, padding=padding, dilation=dilation, groups=groups,
                  output_padding=output_padding)
    ref.case("conv_transpose%dd/%s" % (nd, name), "conv_transpose%dd" % nd, params, inputs, fn)


conv("k3 bias", (2, 3, 7), (2, 3, 3), bias=True)
conv("stride 2 padding 1 dilation 2 groups 2", (1, 4, 9), (4, 2, 3), stride=2, padding=1, dilation=2, groups=2)
conv("same even kernel", (2, 2, 6), (3, 2, 4), padding="same")
conv("same dilation 2", (1, 2, 7), (2, 2, 3), padding="same", dilation=2, bias=True)
conv("valid", (1, 2, 6), (2, 2, 3), padding="valid")
conv("reflect padding 2 bias", (2, 2, 6), (3, 2, 3), bias=True, padding=2, padding_mode="reflect")
conv("replicate padding 3", (1, 2, 4), (2, 2, 2), padding=3, padding_mode="replicate")
conv("circular same", (1, 2, 5), (2, 2, 4), padding="same", padding_mode="circular")
conv("reflect same even kernel", (1, 1, 6), (2, 1, 4), padding="same", padding_mode="reflect")
conv("k3 bias", (2, 2, 5, 6), (3, 2, 3, 3), bias=True)
conv("stride (2, 1) padding (1, 0) groups 2", (1, 4, 5, 5), (2, 2, 2, 3), stride=(2, 1), padding=(1, 0), groups=2)
conv("dilation 2 padding 2", (1, 2, 6, 6), (2, 2, 3, 3), dilation=2, padding=2, bias=True)
conv("same (3, 4) dilation (1, 2)", (1, 2, 5, 7), (2, 2, 3, 4), padding="same", dilation=(1, 2))
conv("reflect padding (1, 2)", (1, 2, 4, 5), (2, 2, 3, 3), padding=(1, 2), padding_mode="reflect", bias=True)
conv("replicate padding 2 stride 2", (1, 2, 5, 4), (3, 2, 2, 2), padding=2, stride=2, padding_mode="replicate")
conv("circular padding 1 stride 2", (2, 1, 5, 5), (2, 1, 3, 3), padding=1, stride=2, padding_mode="circular")
conv("depthwise", (1, 3, 4, 4), (6, 1, 3, 3), groups=3, padding=1, bias=True)
conv("1x1", (2, 3, 3, 4), (2, 3, 1, 1))
conv("k2 bias padding 1", (1, 2, 3, 4, 3), (2, 2, 2, 2, 2), bias=True, padding=1)
conv("stride 2 groups 2 dilation (1, 2, 1)", (1, 2, 4, 5, 3), (2, 1, 2, 2, 2), stride=2, groups=2, dilation=(1, 2, 1))
conv("replicate same", (1, 1, 3, 3, 4), (2, 1, 2, 3, 2), padding="same", padding_mode="replicate")
conv("circular padding (1, 0, 1)", (1, 2, 3, 3, 3), (1, 2, 2, 2, 2), padding=(1, 0, 1), padding_mode="circular")
conv_t("k3 bias", (2, 3, 5), (3, 2, 3), bias=True)
conv_t("stride 2 padding 1 output_padding 1", (1, 2, 4), (2, 3, 3), stride=2, padding=1, output_padding=1)
conv_t("stride 3 groups 2 dilation 2 output_padding 2", (1, 4, 3), (4, 1, 2), stride=3, groups=2, dilation=2,
       output_padding=2, bias=True)
conv_t("output_padding below dilation", (1, 2, 4), (2, 2, 3), stride=1, dilation=2, output_padding=1)
conv_t("k3 bias", (2, 2, 3, 4), (2, 3, 3, 3), bias=True)
conv_t("stride (2, 3) padding (1, 0) output_padding (1, 2)", (1, 2, 3, 3), (2, 2, 3, 2), stride=(2, 3),
       padding=(1, 0), output_padding=(1, 2))
conv_t("groups 2 dilation 2 padding 1", (1, 4, 3, 3), (4, 1, 2, 3), groups=2, dilation=2, padding=1, bias=True)
conv_t("1x1 stride 2", (1, 2, 3, 3), (2, 2, 1, 1), stride=2, output_padding=1)
conv_t("k2 bias", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), bias=True)
conv_t("stride 2 padding 1 output_padding 1 groups 2", (1, 2, 2, 2, 3), (2, 1, 3, 2, 2), stride=2, padding=1,
       output_padding=1, groups=2)

json.dump({"generator": "nn/testdata/gen_conv_ref.py", "torch": torch.__version__, "cases": ref.CASES},
          sys.stdout, separators=(",", ":"))
