#!/usr/bin/python3
"""Writes the golden exchanges of cmd/gradbench's tests: for each eval, small
inputs in the eval's own format and the outputs computed here, independently of
the Go tool, with PyTorch's autograd (float64) from a direct transcription of the
eval's definition (bench/gradbench/README.md links each one).

Run with Debian's python (torch 1.13): /usr/bin/python3 gen_golden.py [eval...]
from this directory. Each eval goes to golden_<eval>.json:
{"module": ..., "cases": [{"function": ..., "input": ..., "output": ...}]}.
"""
import json
import math
import sys

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
RUNS = {"min_runs": 1, "min_seconds": 0}


def t(x, grad=False):
    return torch.tensor(x, dtype=torch.float64, requires_grad=grad)


def grad_of(f, *xs):
    """f(*xs) and its gradient with respect to every x (PyTorch's autograd)."""
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    y = f(*xs)
    gs = torch.autograd.grad(y, xs)
    return y.item(), [g.tolist() for g in gs]


def hello():
    cases = []
    for x in [0.0, 1.5, -3.25]:
        cases.append({"function": "square", "input": x, "output": x * x})
        _, (g,) = grad_of(lambda v: v * v, t(x))
        cases.append({"function": "double", "input": x, "output": g})
    return cases


def lse():
    rng = np.random.default_rng(1)
    cases = []
    for n in [1, 5, 17]:
        x = (rng.uniform(-100, 100, size=n)).tolist()
        f = lambda v: torch.logsumexp(v, 0)
        y, (g,) = grad_of(f, t(x))
        inp = {"x": x} | RUNS
        cases.append({"function": "primal", "input": inp, "output": y})
        cases.append({"function": "gradient", "input": inp, "output": g})
    return cases


def llsq():
    rng = np.random.default_rng(2)
    cases = []
    for n, m in [(2, 1), (7, 3), (16, 8)]:
        x = rng.uniform(size=m).tolist()
        ts = torch.tensor([-1 + i * 2 / (n - 1) for i in range(n)])

        def f(v):
            powers = torch.stack([ts**j for j in range(m)], 1)
            return 0.5 * torch.sum((torch.sign(ts) - powers @ v) ** 2)

        y, (g,) = grad_of(f, t(x))
        inp = {"x": x, "n": n} | RUNS
        cases.append({"function": "primal", "input": inp, "output": y})
        cases.append({"function": "gradient", "input": inp, "output": g})
    return cases


def det():
    rng = np.random.default_rng(3)
    cases = []
    for ell in [1, 2, 3, 5]:
        a = rng.uniform(size=ell * ell).tolist()
        y, (g,) = grad_of(lambda v: torch.linalg.det(v.reshape(ell, ell)), t(a))
        inp = {"A": a, "ell": ell} | RUNS
        cases.append({"function": "primal", "input": inp, "output": y})
        cases.append({"function": "gradient", "input": inp, "output": g})
    return cases


def gmm():
    rng = np.random.default_rng(4)
    cases = []
    for d, k, n, m, gamma in [(1, 2, 3, 0, 1.0), (3, 2, 4, 2, 0.7)]:
        inp = {
            "d": d, "k": k, "n": n, "m": m, "gamma": gamma,
            "x": rng.normal(size=(n, d)).tolist(),
            "alpha": rng.normal(size=k).tolist(),
            "mu": rng.uniform(size=(k, d)).tolist(),
            "q": rng.normal(size=(k, d)).tolist(),
            "l": rng.normal(size=(k, d * (d - 1) // 2)).tolist(),
        }
        x = t(inp["x"])

        def f(alpha, mu, q, l):
            # Q_k: exp(q_k) on the diagonal, l_k below it in column-major order.
            Qs = []
            for c in range(k):
                cols = [torch.zeros(d, dtype=torch.float64) for _ in range(d)]
                rows = []
                it = 0
                Q = torch.diag(torch.exp(q[c]))
                for j in range(d):
                    for i in range(j + 1, d):
                        e = torch.zeros(d, d)
                        e[i, j] = 1.0
                        Q = Q + l[c, it] * e
                        it += 1
                Qs.append(Q)
            total = -n * d / 2 * math.log(2 * math.pi)
            for i in range(n):
                terms = torch.stack([
                    alpha[c] + q[c].sum() - 0.5 * torch.sum((Qs[c] @ (x[i] - mu[c])) ** 2)
                    for c in range(k)
                ])
                total = total + torch.logsumexp(terms, 0)
            total = total - n * torch.logsumexp(alpha, 0)
            nn = d + m + 1
            for c in range(k):
                total = total + m * q[c].sum() - gamma**2 / 2 * (
                    torch.sum(torch.exp(q[c]) ** 2) + torch.sum(l[c] ** 2))
            const = nn * d * math.log(gamma / math.sqrt(2)) - float(
                torch.special.multigammaln(torch.tensor(nn / 2), d))
            return total + k * const

        y, (ga, gmu, gq, gl) = grad_of(f, t(inp["alpha"]), t(inp["mu"]), t(inp["q"]), t(inp["l"]))
        inp |= RUNS
        cases.append({"function": "objective", "input": inp, "output": y})
        cases.append({"function": "jacobian", "input": inp,
                      "output": {"alpha": ga, "mu": gmu, "q": gq, "l": gl}})
    return cases


def kmeans():
    rng = np.random.default_rng(5)
    cases = []
    for n, k, d in [(4, 1, 1), (12, 3, 2)]:
        points = rng.uniform(size=(n, d))
        centroids = points[-k:] + 0.01  # each centroid keeps a nearest point
        P = t(points.tolist())

        def cost(c):
            dist = ((P[:, None, :] - c[None, :, :]) ** 2).sum(2)
            return dist.min(1).values.sum()

        c = t(centroids.tolist(), True)
        (g,) = torch.autograd.grad(cost(c), c, create_graph=True)
        (hdiag,) = torch.autograd.grad(g, c, torch.ones_like(c))
        inp = {"points": points.tolist(), "centroids": centroids.tolist()} | RUNS
        cases.append({"function": "cost", "input": inp, "output": cost(c).item()})
        cases.append({"function": "dir", "input": inp, "output": (g / hdiag).tolist()})
    return cases


def ode():
    rng = np.random.default_rng(6)
    cases = []
    for n, s in [(1, 1), (2, 3), (6, 4)]:
        x = rng.uniform(size=n).tolist()

        def solve(v):
            def rhs(y):
                return v * torch.cat([torch.ones(1), y[:-1]])

            y = torch.zeros(n)
            h = 2.0 / s
            for _ in range(s):
                k1 = rhs(y)
                k2 = rhs(y + h / 2 * k1)
                k3 = rhs(y + h / 2 * k2)
                k4 = rhs(y + h * k3)
                y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            return y

        _, (g,) = grad_of(lambda v: solve(v)[-1], t(x))
        inp = {"x": x, "s": s} | RUNS
        cases.append({"function": "primal", "input": inp, "output": solve(t(x)).tolist()})
        cases.append({"function": "gradient", "input": inp, "output": g})
    return cases


def lstm():
    rng = np.random.default_rng(7)
    cases = []
    for l, c, b in [(1, 2, 2), (2, 5, 3)]:
        main = rng.normal(size=(2 * l, 4 * b))
        extra = rng.normal(size=(3, b))
        state = rng.normal(size=(2 * l, b))
        seq = rng.integers(0, 2, size=(c, b)).astype(float)

        def f(w, w2):
            s = [t(r) for r in state]
            total = 0.0
            for step in range(c - 1):
                x = t(seq[step]) * w2[0]
                for i in range(l):
                    h, cell = s[2 * i], s[2 * i + 1]
                    g = torch.cat([x, h, x, h]) * w[2 * i] + w[2 * i + 1]
                    cell = cell * torch.sigmoid(g[:b]) + torch.sigmoid(g[b:2 * b]) * torch.tanh(g[3 * b:])
                    h = torch.sigmoid(g[2 * b:3 * b]) * torch.tanh(cell)
                    s[2 * i], s[2 * i + 1] = h, cell
                    x = h
                y = x * w2[1] + w2[2]
                # ADBench's normalisation: log(2 + sum exp y).
                total = total + torch.sum(t(seq[step + 1]) * (y - torch.log(2 + torch.exp(y).sum())))
            return -total / ((c - 1) * b)

        y, (gw, gw2) = grad_of(f, t(main.tolist()), t(extra.tolist()))
        inp = {"main_params": main.tolist(), "extra_params": extra.tolist(),
               "state": state.tolist(), "sequence": seq.tolist()} | RUNS
        cases.append({"function": "objective", "input": inp, "output": y})
        cases.append({"function": "jacobian", "input": inp,
                      "output": np.concatenate([np.ravel(gw), np.ravel(gw2)]).tolist()})
    return cases


def ba():
    rng = np.random.default_rng(8)
    cases = []
    for n, m, p, rot in [(2, 3, 16, None), (3, 2, 17, [0.0, 0.0, 0.0])]:
        cam = rng.uniform(-1, 1, size=11)
        cam[3:6] = rng.uniform(-1, 1, size=3)
        cam[6] = 2.0
        if rot is not None:
            cam[0:3] = rot
        x = rng.uniform(-1, 1, size=3) + np.array([0, 0, 5])
        w = float(rng.uniform(0.5, 1.5))
        feat = rng.uniform(-1, 1, size=2)

        def reproj(c, X, wj):
            r, Y = c[0:3], X - c[3:6]
            sq = torch.sum(r**2)
            if sq.item() != 0:
                th = torch.sqrt(sq)
                om = r / th
                Y = Y * torch.cos(th) + torch.linalg.cross(om, Y) * torch.sin(th) + om * torch.dot(om, Y) * (1 - torch.cos(th))
            else:
                Y = Y + torch.linalg.cross(r, Y)
            u = Y[0:2] / Y[2]
            rsq = torch.sum(u**2)
            u = u * (1 + c[9] * rsq + c[10] * rsq**2)
            return wj * (u * c[6] + c[7:9] - t(feat.tolist()))

        # Full CSR Jacobian: per observation two rows of (11 cam, 3 point, 1 weight).
        rows, cols, vals = [0], [], []
        errs = []
        for j in range(p):
            ci, pi = j % n, j % m
            c, X, wj = t(cam.tolist()), t(x.tolist()), t(w)
            J = torch.autograd.functional.jacobian(reproj, (c, X, wj))
            errs.append(reproj(c, X, wj).tolist())
            for r in range(2):
                rows.append(rows[-1] + 15)
                cols += [11 * ci + i for i in range(11)] + [11 * n + 3 * pi + i for i in range(3)] + [11 * n + 3 * m + j]
                vals += J[0][r].tolist() + J[1][r].tolist() + [J[2][r].item()]
        for j in range(p):
            rows.append(rows[-1] + 1)
            cols.append(11 * n + 3 * m + j)
            vals.append(-2 * w)
        inp = {"n": n, "m": m, "p": p, "cam": cam.tolist(), "x": x.tolist(), "w": w,
               "feat": feat.tolist()} | RUNS
        cases.append({"function": "objective", "input": inp, "output": {
            "reproj_error": {"elements": errs[0], "repeated": float(p)},
            "w_err": {"element": 1 - w * w, "repeated": float(p)}}})
        cut = lambda v: [float(a) for a in v[:30] + [v[-1]]]
        cases.append({"function": "jacobian", "input": inp,
                      "output": {"rows": cut(rows), "cols": cut(cols), "vals": cut(vals)}})
    return cases


def ht_model(rng, nb=22, nv=7, ntri=4):
    parents = [-1] + [int(rng.integers(0, i)) for i in range(1, nb)]

    def transform():
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        m = np.eye(4)
        m[:3, :3] = q
        m[:3, 3] = rng.normal(size=3)
        return m.tolist()

    w = rng.uniform(size=(nv, nb))
    w /= w.sum(1, keepdims=True)
    base = np.ones((nv, 4))
    base[:, :3] = rng.normal(size=(nv, 3))
    return {
        "bone_count": nb, "bone_names": [f"b{i}" for i in range(nb)], "parents": parents,
        "base_relatives": [transform() for _ in range(nb)],
        "inverse_base_absolutes": [transform() for _ in range(nb)],
        "base_positions": base.tolist(), "weights": w.tolist(),
        "triangles": rng.integers(0, nv, size=(ntri, 3)).tolist(), "is_mirrored": False,
    }


def ht_errors(model, points, corr, theta, us):
    """The hand model's errors (GradBench's C++ definition, written anew)."""
    nb = model["bone_count"]
    z = torch.zeros(())
    pose = [[z, z, z] for _ in range(nb + 3)]
    pose[0] = [theta[0], theta[1], theta[2]]
    pose[1] = [torch.ones(())] * 3
    pose[2] = [theta[3], theta[4], theta[5]]
    it, row = 6, 5
    for _ in range(5):
        for joint in range(3):
            pose[row][0] = theta[it]
            it += 1
            if joint == 0:
                pose[row][1] = theta[it]
                it += 1
            row += 1
        row += 1
    pose = torch.stack([torch.stack(r) for r in pose])

    def rot(tx, ty, tz):
        cx, sx, cy, sy, cz, sz = torch.cos(tx), torch.sin(tx), torch.cos(ty), torch.sin(ty), torch.cos(tz), torch.sin(tz)
        o, n = torch.ones(()), torch.zeros(())
        Rx = torch.stack([torch.stack(r) for r in [[o, n, n], [n, cx, -sx], [n, sx, cx]]])
        Ry = torch.stack([torch.stack(r) for r in [[cy, n, sy], [n, o, n], [-sy, n, cy]]])
        Rz = torch.stack([torch.stack(r) for r in [[cz, -sz, n], [sz, cz, n], [n, n, o]]])
        return Rz @ Ry @ Rx

    absolutes = []
    for i in range(nb):
        a = pose[i + 3]
        tr = torch.eye(4)
        tr = tr + torch.nn.functional.pad(rot(a[0], a[2], a[1]) - torch.eye(3), (0, 1, 0, 1))
        rel = t(model["base_relatives"][i]) @ tr
        p = model["parents"][i]
        absolutes.append(rel if p == -1 else absolutes[p] @ rel)
    base = t(model["base_positions"])
    W = t(model["weights"])
    pos = torch.zeros(3, base.shape[0])
    for b in range(nb):
        T = absolutes[b] @ t(model["inverse_base_absolutes"][b])
        pos = pos + (T @ base.T)[:3] * W[:, b]
    if model["is_mirrored"]:
        pos = pos * t([[-1.0], [1.0], [1.0]])
    aa = pose[0]
    nrm = torch.sqrt(torch.sum(aa**2))
    if nrm.item() < 1e-4:
        R = torch.eye(3)
    else:
        x, y, zz = aa / nrm
        s, c = torch.sin(nrm), torch.cos(nrm)
        R = torch.stack([torch.stack(r) for r in [
            [x * x + (1 - x * x) * c, x * y * (1 - c) - zz * s, x * zz * (1 - c) + y * s],
            [x * y * (1 - c) + zz * s, y * y + (1 - y * y) * c, y * zz * (1 - c) - x * s],
            [x * zz * (1 - c) - y * s, zz * y * (1 - c) + x * s, zz * zz + (1 - zz * zz) * c]]])
    R = R * pose[1]
    pos = R @ pos + pose[2][:, None]
    errs = []
    for i, ci in enumerate(corr):
        if us is None:
            hand = pos[:, ci]
        else:
            a, b, c = model["triangles"][ci]
            hand = us[i, 0] * pos[:, a] + us[i, 1] * pos[:, b] + (1 - us[i, 0] - us[i, 1]) * pos[:, c]
        errs.append(t(points[i]) - hand)
    return torch.cat(errs)


def ht():
    rng = np.random.default_rng(9)
    cases = []
    for complicated, mirrored, small_rotation in [(False, False, False), (True, False, False), (True, True, True)]:
        model = ht_model(rng)
        model["is_mirrored"] = mirrored
        npts = 3
        points = rng.normal(size=(npts, 3)).tolist()
        theta = rng.normal(size=26)
        if small_rotation:
            theta[0:3] = 1e-5
        if complicated:
            corr = rng.integers(0, len(model["triangles"]), size=npts).tolist()
            us = rng.uniform(size=(npts, 2))
        else:
            corr = rng.integers(0, len(model["base_positions"]), size=npts).tolist()
            us = None
        th = t(theta.tolist())
        if us is None:
            f = lambda v: ht_errors(model, points, corr, v, None)
            err = f(th)
            jac = torch.autograd.functional.jacobian(f, th)
        else:
            f = lambda v, u: ht_errors(model, points, corr, v, u)
            err = f(th, t(us.tolist()))
            jt, ju = torch.autograd.functional.jacobian(f, (th, t(us.tolist())))
            # Row 3i+k depends on us[i] only: keep that 2-column block.
            ublock = torch.stack([ju[r, r // 3] for r in range(3 * npts)])
            jac = torch.cat([ublock, jt], 1)
        inp = {"theta": theta.tolist(), "us": [] if us is None else us.tolist(),
               "data": {"model": model, "correspondences": corr, "points": points}} | RUNS
        cases.append({"function": "objective", "input": inp, "output": err.tolist()})
        cases.append({"function": "jacobian", "input": inp, "output": jac.tolist()})
    return cases


def descent(f, grad, x0):
    """GradBench's gradient descent (its solver.fut / gd.hpp), on values or,
    with f and grad differentiable in torch, recorded for an outer gradient."""
    x, fx, gx = x0, f(x0), grad(x0)
    eta, i = 1e-5, 0
    while True:
        if torch.sqrt(torch.sum(gx.detach() ** 2)).item() <= 1e-5:
            return x
        if i == 10:
            eta, i = eta * 2, 0
            continue
        xp = x - eta * gx
        if torch.sqrt(torch.sum((x.detach() - xp.detach()) ** 2)).item() <= 1e-5:
            return x
        fxp = f(xp)
        if fxp.item() < fx.item():
            x, fx, gx = xp, fxp, grad(xp)
            i += 1
        else:
            eta, i = eta / 2, 0


def naive_euler(w):
    """x_f(w)_0² of the particle eval, the force by a recorded gradient."""
    charges = torch.stack([torch.stack([torch.tensor(10.0), 10 - w[0]]), t([10.0, 0.0])])
    x = t([0.0, 8.0], True)
    xdot = t([0.75, 0.0])
    dt = 0.1
    while True:
        p = torch.sum(1 / torch.sqrt(torch.sum((x - charges) ** 2, 1)))
        (g,) = torch.autograd.grad(p, x, create_graph=True)
        xnew = x + dt * xdot
        if xnew[1].item() <= 0:
            dtf = -xnew[1] / xdot[1]
            return (xnew + dtf * xdot)[0] ** 2
        xdot = xdot - dt * g
        x = xnew


def value_and_grad(f, x):
    x = x.detach().clone().requires_grad_(True)
    y = f(x)
    (g,) = torch.autograd.grad(y, x)
    return y.detach(), g


def particle_opt():
    w = descent(lambda v: naive_euler(v).detach(), lambda v: value_and_grad(naive_euler, v)[1], t([0.0]))
    return w.item()


def saddle_cost(p1, p2):
    return torch.sum(p1**2) - torch.sum(p2**2)


def inner_max(p1, start):
    """max over p2 of f(p1, p2) by the recorded descent on -f from start."""
    def neg(p2):
        return -saddle_cost(p1, p2)

    def grad(p2):
        (g,) = torch.autograd.grad(neg(p2), p2, create_graph=True)
        return g

    p2 = descent(neg, grad, t(start, True))
    return saddle_cost(p1, p2)


def saddle_opt(start):
    r1 = descent(lambda p: inner_max(p, start).detach(), lambda p: value_and_grad(lambda q: inner_max(q, start), p)[1], t(start))
    r1 = r1.detach()
    r2 = descent(lambda p: -saddle_cost(r1, p).detach(),
                 lambda p: value_and_grad(lambda q: -saddle_cost(r1, q), p)[1], t(start))
    return r1.tolist() + r2.detach().tolist()


def particle():
    # From the optimum the descent stops at once: the exchange checks the
    # protocol of the four functions; nested_ref.json checks the derivatives.
    w = particle_opt()
    return [{"function": fn, "input": {"w": w} | RUNS, "output": w} for fn in ["rr", "ff", "fr", "rf"]]


def saddle():
    start = [1.0, 1.0]
    opt = saddle_opt(start)
    return [{"function": fn, "input": {"start": opt[:2]} | RUNS, "output": saddle_opt(opt[:2])}
            for fn in ["rr", "ff", "fr", "rf"]]


def nested_ref():
    """Values and derivatives of the nested functions, through the recorded
    inner gradients (and, for saddle, the recorded inner descent)."""
    out = {"particle": [], "saddle": []}
    for w in [0.0, 0.15]:
        y, g = value_and_grad(naive_euler, t([w]))
        out["particle"].append({"w": [w], "value": y.item(), "grad": g.tolist()})
    for p1 in [[1.0, 1.0], [0.5, -0.3]]:
        y, g = value_and_grad(lambda q: inner_max(q, [1.0, 1.0]), t(p1))
        out["saddle"].append({"p1": p1, "start": [1.0, 1.0], "value": y.item(), "grad": g.tolist()})
    with open("nested_ref.json", "w") as f:
        json.dump(out, f)
        f.write("\n")


EVALS = {"particle": particle, "saddle": saddle, "ht": ht, "ba": ba, "lstm": lstm, "hello": hello, "lse": lse, "llsq": llsq, "det": det, "gmm": gmm, "kmeans": kmeans, "ode": ode}


def main():
    names = sys.argv[1:] or list(EVALS) + ["nested_ref"]
    for name in names:
        if name == "nested_ref":
            nested_ref()
            continue
        with open(f"golden_{name}.json", "w") as f:
            json.dump({"module": name, "cases": EVALS[name]()}, f)
            f.write("\n")


if __name__ == "__main__":
    main()
