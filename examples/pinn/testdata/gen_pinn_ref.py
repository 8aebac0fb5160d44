"""PyTorch reference for examples/pinn: the PINN loss and its gradient with respect to
the weights (a third derivative of the network: the loss holds the Laplacian from two
create_graph gradients), at random points and weights, written to pinn_ref.json.

    /usr/bin/python3 examples/pinn/testdata/gen_pinn_ref.py

The computation is bench/peers.py's pinn.gradient step, at fewer points to keep the
file small.
"""
import json
import os

import torch

torch.manual_seed(23)
f64 = torch.float64
widths = [2, 32, 32, 1]
Ws = []
for i in range(3):
    a = (6 / (widths[i] + widths[i + 1])) ** 0.5
    Ws.append((torch.rand(widths[i], widths[i + 1], dtype=f64) * 2 - 1).mul(a).requires_grad_())
    Ws.append((torch.rand(widths[i + 1], dtype=f64) * 0.2 - 0.1).requires_grad_())  # nonzero biases
P = torch.rand(64, 2, dtype=f64)
Q = torch.rand(16, 2, dtype=f64)
f = 2 * torch.pi ** 2 * torch.sin(torch.pi * P[:, 0]) * torch.sin(torch.pi * P[:, 1])


def net(X):
    h = torch.tanh(X @ Ws[0] + Ws[1])
    h = torch.tanh(h @ Ws[2] + Ws[3])
    return h @ Ws[4] + Ws[5]


X = P.clone().requires_grad_()
g, = torch.autograd.grad(net(X).sum(), X, create_graph=True)
uxx, = torch.autograd.grad(g[:, 0].sum(), X, create_graph=True)
uyy, = torch.autograd.grad(g[:, 1].sum(), X, create_graph=True)
r = uxx[:, 0] + uyy[:, 1] + f
loss = (r ** 2).mean() + (net(Q) ** 2).mean()
grads = torch.autograd.grad(loss, Ws)


def enc(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.detach().reshape(-1)]}


out = {
    "torch": torch.__version__,
    "P": enc(P), "Q": enc(Q),
    "params": [enc(w) for w in Ws],
    "loss": float(loss),
    "grads": [enc(t) for t in grads],
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pinn_ref.json")
with open(path, "w") as fh:
    json.dump(out, fh, separators=(",", ":"))
print("wrote", path, "loss", float(loss))
