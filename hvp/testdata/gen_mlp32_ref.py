#!/usr/bin/python3
"""Generate hvp/testdata/mlp32_ref.json: PyTorch's float32 loss, gradient and
Hessian-vector product of the MLP of hvp/mlp_test.go (mlpLoss), replayed by
hvp/torch_ref32_test.go.

Run once from the module root (Debian's python3 with torch 1.13):

    /usr/bin/python3 hvp/testdata/gen_mlp32_ref.py > hvp/testdata/mlp32_ref.json

The MLP has two tanh layers and a softmax cross-entropy written with logsumexp and
a one-hot matrix,

    h1 = tanh(X W1 + b1), h2 = tanh(h1 W2 + b2), z = h2 W3 + b3,
    L  = mean_b (logsumexp_c z_bc - sum_c z_bc Y_bc),

with parameters (W1, b1, W2, b2, W3, b3), all tensors float32. The gradient is
torch.autograd.grad of L, the HVP the gradient of <grad L, v> (double backward),
both in float32. The same quantities in float64, at the same float32 values, are
stored too, to measure how far float32 is from the exact result.
"""

import json

import torch

torch.manual_seed(20261127)
B, W = 16, [8, 6, 5, 4]


def loss(X, Y, W1, b1, W2, b2, W3, b3):
    h = torch.tanh(torch.tanh(X @ W1 + b1) @ W2 + b2) @ W3 + b3
    return (torch.logsumexp(h, 1) - (h * Y).sum(1)).mean()


def flat(ts):
    return [t.detach().reshape(-1).tolist() for t in ts]


def derivs(X, Y, params, v, dt):
    X, Y = X.to(dt), Y.to(dt)
    ps = [p.to(dt).requires_grad_(True) for p in params]
    L = loss(X, Y, *ps)
    g = torch.autograd.grad(L, ps, create_graph=True)
    hv = torch.autograd.grad(sum((gi * vi.to(dt)).sum() for gi, vi in zip(g, v)), ps)
    return L.item(), flat(g), flat(hv)


def main():
    f32 = torch.float32
    X = torch.randn(B, W[0], dtype=f32)
    Y = torch.nn.functional.one_hot(torch.randint(0, W[-1], (B,)), W[-1]).to(f32)
    params = []
    for i in range(len(W) - 1):
        params.append(torch.randn(W[i], W[i + 1], dtype=f32) / W[i] ** 0.5)
        params.append(torch.randn(W[i + 1], dtype=f32) * 0.1)
    v = [torch.randn(p.shape, dtype=f32) for p in params]
    L32, g32, hv32 = derivs(X, Y, params, v, f32)
    L64, g64, hv64 = derivs(X, Y, params, v, torch.float64)
    print(json.dumps({
        "torch": torch.__version__, "shapes": [list(p.shape) for p in params],
        "X": X.reshape(-1).tolist(), "X_shape": list(X.shape), "Y": Y.reshape(-1).tolist(),
        "params": flat(params), "v": flat(v),
        "float32": {"loss": L32, "grad": g32, "hvp": hv32},
        "float64": {"loss": L64, "grad": g64, "hvp": hv64},
    }))


if __name__ == "__main__":
    main()
