#!/usr/bin/python3
"""Generate optim/testdata/optim_ref.json: PyTorch's trajectories of the optimisers,
learning-rate schedules and gradient clipping of package optim, replayed by
optim/torch_ref_test.go.

Run once from the module root (Debian's python3 with torch 1.13):

    /usr/bin/python3 optim/testdata/gen_optim_ref.py > optim/testdata/optim_ref.json
    /usr/bin/python3 optim/testdata/gen_optim_ref.py float32 > optim/testdata/optim_ref32.json

The second file is the same runs (without the schedules, which do not depend on the
dtype) and clipping cases in float32: parameters, gradients and the optimisers'
state in float32, as torch keeps them for float32 parameters.

The problem is non-quadratic: a parameter set (a [4], b [2, 3]) with

    f(a, b) = sum_i 100 (a_{i+1} - a_i^2)^2 + (1 - a_i)^2        (Rosenbrock)
            + sum_jk sin(b_jk) exp(-b_jk^2 / 4) + 0.1 a_0 sum_jk cos(b_jk)

Each run takes STEPS steps of one optimiser (torch.optim, foreach=False) from the
same start, with gradients from torch.autograd, and optionally a schedule stepped
after each optimiser step. It records the gradients of every step (so that the Go
test replays them without depending on the project's autograd), the parameters
after every step and the learning rate used by every step.
"""

import json
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
SINGLE = sys.argv[1:] == ["float32"]
DT = torch.float32 if SINGLE else torch.float64
STEPS = 20


def init():
    a = torch.tensor([-1.2, 1.0, 0.5, -0.3], dtype=DT)
    b = torch.tensor([[0.3, -0.7, 1.1], [-1.4, 0.2, 0.9]], dtype=DT)
    return [a, b]


def loss(a, b):
    rosen = (100 * (a[1:] - a[:-1] ** 2) ** 2 + (1 - a[:-1]) ** 2).sum()
    return rosen + (torch.sin(b) * torch.exp(-b * b / 4)).sum() + 0.1 * a[0] * torch.cos(b).sum()


def flat(ts):
    return [t.detach().reshape(-1).tolist() for t in ts]


OPT = {
    "SGD": torch.optim.SGD,
    "Adam": torch.optim.Adam,
    "AdamW": torch.optim.AdamW,
    "RMSprop": torch.optim.RMSprop,
}


def make_schedule(opt, spec):
    kind = spec["type"]
    if kind == "StepLR":
        return torch.optim.lr_scheduler.StepLR(opt, spec["step_size"], spec["gamma"])
    if kind == "CosineAnnealingLR":
        return torch.optim.lr_scheduler.CosineAnnealingLR(opt, spec["T_max"], spec["eta_min"])
    if kind == "LinearLR":
        return torch.optim.lr_scheduler.LinearLR(opt, spec["start_factor"], spec["end_factor"], spec["total_iters"])
    if kind == "SequentialLR":
        subs = [make_schedule(opt, s) for s in spec["schedules"]]
        return torch.optim.lr_scheduler.SequentialLR(opt, subs, spec["milestones"])
    raise ValueError(kind)


def run(name, kind, config, schedule=None):
    params = [p.clone().requires_grad_(True) for p in init()]
    opt = OPT[kind](params, foreach=False, **config)
    sched = make_schedule(opt, schedule) if schedule else None
    grads, traj, lrs = [], [], []
    for _ in range(STEPS):
        opt.zero_grad()
        loss(*params).backward()
        grads.append(flat(p.grad for p in params))
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        traj.append(flat(params))
        if sched:
            sched.step()
    case = {"name": name, "kind": kind, "config": config, "shapes": [list(p.shape) for p in params],
            "init": flat(init()), "grads": grads, "params": traj, "lrs": lrs}
    if schedule:
        case["schedule"] = schedule
    return case


RUNS = [
    ("sgd", "SGD", {"lr": 1e-3}),
    ("sgd-momentum", "SGD", {"lr": 1e-3, "momentum": 0.9}),
    ("sgd-dampening-wd", "SGD", {"lr": 1e-3, "momentum": 0.8, "dampening": 0.25, "weight_decay": 1e-2}),
    ("sgd-nesterov", "SGD", {"lr": 5e-4, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}),
    ("sgd-maximize", "SGD", {"lr": 2e-5, "maximize": True}),
    ("adam", "Adam", {"lr": 1e-2}),
    ("adam-betas-wd", "Adam", {"lr": 2e-2, "betas": (0.5, 0.9), "weight_decay": 1e-2, "eps": 1e-6}),
    ("adam-amsgrad", "Adam", {"lr": 1e-2, "amsgrad": True}),
    ("adam-maximize", "Adam", {"lr": 1e-3, "maximize": True}),
    ("adamw", "AdamW", {"lr": 1e-2}),
    ("adamw-wd-amsgrad", "AdamW", {"lr": 1e-2, "weight_decay": 0.1, "amsgrad": True, "betas": (0.8, 0.95)}),
    ("rmsprop", "RMSprop", {"lr": 1e-3}),
    ("rmsprop-centered-momentum-wd", "RMSprop", {"lr": 1e-3, "centered": True, "momentum": 0.9, "weight_decay": 1e-2}),
    ("rmsprop-momentum", "RMSprop", {"lr": 1e-3, "momentum": 0.5}),
    ("rmsprop-alpha-eps-maximize", "RMSprop", {"lr": 1e-4, "alpha": 0.9, "eps": 1e-6, "maximize": True}),
    ("rmsprop-centered", "RMSprop", {"lr": 1e-3, "centered": True}),
]

SCHEDULES = [
    ("steplr", "SGD", {"lr": 1e-3, "momentum": 0.9}, {"type": "StepLR", "step_size": 5, "gamma": 0.5}),
    ("cosine", "Adam", {"lr": 1e-2}, {"type": "CosineAnnealingLR", "T_max": 7, "eta_min": 1e-4}),
    ("cosine-zero", "SGD", {"lr": 1e-3}, {"type": "CosineAnnealingLR", "T_max": 6, "eta_min": 0.0}),
    ("linear", "AdamW", {"lr": 1e-2}, {"type": "LinearLR", "start_factor": 0.25, "end_factor": 1.0, "total_iters": 6}),
    ("warmup-cosine", "Adam", {"lr": 1e-2}, {"type": "SequentialLR", "milestones": [4], "schedules": [
        {"type": "LinearLR", "start_factor": 0.1, "end_factor": 1.0, "total_iters": 4},
        {"type": "CosineAnnealingLR", "T_max": 10, "eta_min": 1e-3}]}),
]


def clip_cases():
    g = torch.Generator().manual_seed(7)
    out = []
    for max_norm, norm_type in [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (2.0, 3.0), (0.3, float("inf")), (50.0, float("inf"))]:
        grads = [torch.randn(4, generator=g, dtype=DT) * 2, torch.randn(2, 3, generator=g, dtype=DT)]
        params = [torch.zeros_like(x, requires_grad=True) for x in grads]
        for p, x in zip(params, grads):
            p.grad = x.clone()
        total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        out.append({"max_norm": max_norm, "norm_type": "inf" if norm_type == float("inf") else norm_type,
                    "shapes": [list(x.shape) for x in grads], "grads": flat(grads),
                    "total": total.item(), "clipped": flat(p.grad for p in params)})
    return out


def main():
    runs = [run(*r) for r in RUNS]
    if not SINGLE:
        runs += [run(*s) for s in SCHEDULES]
    ref = {"torch": torch.__version__, "dtype": str(DT).removeprefix("torch."), "steps": STEPS,
           "runs": runs, "clip": clip_cases()}
    print(json.dumps(ref))


if __name__ == "__main__":
    main()
