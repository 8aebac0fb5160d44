"""Fits T2..T6 of the AVX-512 Tanh32 kernel (single.go, k32T2..k32T6).

q = e^r - 1 = r + r^2 P(r), P(r) = T2 + T3 r + ... + T6 r^4, on |r| <= ln2/2
(with a margin for the rounding of k): minimax, by linear programming on a dense
grid, of the relative error of q, |r^2 (P(r) - f(r))| / |e^r - 1| with
f(r) = (e^r - 1 - r)/r^2, weighted by the factor with which it reaches tanh =
m/(m + 2), m = (2^k - 1) + 2^k q: (2^k q/m) (2/(m + 2)), for k = 0 where r >= 0
(r = w) and for k = 1 where r < 0 (the largest factor there). The coefficients
are rounded to float32 one at a time, lowest degree first, each after refitting
the ones still free.

Run with Debian's python (numpy, scipy, mpmath): /usr/bin/python3 tanh32_poly.py
"""
import mpmath as mp
import numpy as np
from scipy.optimize import linprog

mp.mp.dps = 40
DEG = 4
R = float(mp.log(2) / 2) * 1.0005
r = np.concatenate([-np.geomspace(R, 1e-5, 1500), np.geomspace(1e-5, R, 1500)])
f = np.array([float((mp.expm1(mp.mpf(x)) - mp.mpf(x)) / mp.mpf(x) ** 2) for x in r])
q = np.array([float(mp.expm1(mp.mpf(x))) for x in r])
rel = r**2 / np.abs(q)
amp = np.where(r >= 0, 2 / (2 + q), np.abs(2 * q / (1 + 2 * q)) * 2 / (3 + 2 * q))
wt = rel * amp
SCALE = 3e7  # keeps the LP's tolerances below the errors fitted


def fit(fixed):
    free = [j for j in range(DEG + 1) if j not in fixed]
    g = f - sum(v * r**j for j, v in fixed.items())
    V = np.vstack([r**j for j in free]).T * (SCALE * wt)[:, None]
    A = np.vstack([np.hstack([V, -np.ones((len(r), 1))]), np.hstack([-V, -np.ones((len(r), 1))])])
    b = np.concatenate([SCALE * wt * g, -SCALE * wt * g])
    c = np.zeros(len(free) + 1)
    c[-1] = 1
    res = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * (len(free) + 1), method="highs")
    out = dict(fixed)
    for i, j in enumerate(free):
        out[j] = res.x[i]
    return out


fixed = {}
for j in range(DEG + 1):
    fixed[j] = float(np.float32(fit(fixed)[j]))
P = sum(fixed[j] * r**j for j in range(DEG + 1))
err = np.abs(rel * (P - f))
print("relative error of q: 2^%.2f, weighted 2^%.2f" % (np.log2(err.max()), np.log2((err * amp).max())))
print(", ".join("k32T%d: %s" % (j + 2, fixed[j].hex().replace("0000000p", "p")) for j in reversed(range(DEG + 1))))
