"""Reference values of torch.eye, torch.arange and torch.linspace in float64, for
tensor/creation_test.go. Run with Debian's python (torch 1.13):

    /usr/bin/python3 tensor/testdata/gen_creation_ref.py > tensor/testdata/creation_ref.json
"""
import json

import torch

cases = []
for n, m in [(3, 3), (2, 4), (4, 1), (0, 3)]:
    cases.append({"fn": "eye", "args": [n, m],
                  "shape": [n, m], "values": torch.eye(n, m, dtype=torch.float64).flatten().tolist()})
for start, end, step in [(0, 5, 1), (1, 2.5, 0.5), (10, 0, -3), (0, 1, 0.1), (-1, 1, 0.3), (2, 2, 1), (0.5, 7, 1.3)]:
    v = torch.arange(start, end, step, dtype=torch.float64)
    cases.append({"fn": "arange", "args": [start, end, step], "shape": list(v.shape), "values": v.tolist()})
for start, end, steps in [(0, 1, 5), (-1, 1, 7), (0, 1, 11), (3, -2, 4), (0.1, 0.7, 101), (2, 5, 1), (2, 5, 0), (1e-3, 1e3, 17)]:
    v = torch.linspace(start, end, steps, dtype=torch.float64)
    cases.append({"fn": "linspace", "args": [start, end, steps], "shape": list(v.shape), "values": v.tolist()})
print(json.dumps({"torch": torch.__version__, "cases": cases}, indent=None))
