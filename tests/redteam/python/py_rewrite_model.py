# Attack (rewriting an imported problem's reference): a KernelBench problem imported with
# `kjudge import kernelbench` is judged against its model.py, a file in the user's data directory
# that the reference worker imports at every evaluation. A candidate's module is imported before
# the worker's sandbox, so it can write there. The worker's party description (party.json, in
# $KJUDGE_LIBRARY_DIR) names the problem's directory (problem_dir); this module appends to that
# directory's model.py a line that makes Model.forward return zeros of the right shape. The
# reference of every LATER evaluation of this problem then returns zeros, and a candidate returning
# torch.zeros (tests/redteam/python/py_rewrite_model_zeros.py) is accepted as correct and faster.
# This candidate itself computes honestly (tanh(x * scale)), so the rewrite is all it does.
# Two steps: tests/redteam/python/py_rewrite_model.sh.
# The reference worker of the SAME evaluation imports model.py while the candidate's worker
# imports this module (both start at once): when the candidate wins that race, this evaluation's
# reference is already zeros (seen under `kjudge redteam`: this honest ModelNew was then
# wrong_result:tolerance, "out=-0.967 ref=0"), so a candidate that returns zeros and rewrites
# model.py can pass in one step when it wins (it did in 1 of the 2 runs here).
# Pre-fix (b5c5f0e): the rewrite succeeds; py_rewrite_model.sh: the zeros candidate is
# wrong_result:tolerance before it and ok_faster, 3.0x [2.67, 3.10] against torch:eager, after.
# Expected after the fix: the write is denied (the import runs in the sandbox: the problem's
# directory is not writable); this evaluation is ok (harmless); and a later evaluation checks the
# problem files against the sha256 recorded at import (a changed model.py: exit 2).
import json
import os

import torch
import torch.nn as nn

_PATCH = ("\n# appended by a candidate\n"
          "_kj_forward = Model.forward\n"
          "Model.forward = lambda self, *a, **k: torch.zeros_like(_kj_forward(self, *a, **k))\n")


def _rewrite():
    try:
        with open(os.path.join(os.environ["KJUDGE_LIBRARY_DIR"], "party.json")) as f:
            cfg = json.load(f)
        model = os.path.join(cfg["problem_dir"], "model.py")
        with open(model) as f:
            if "appended by a candidate" in f.read():
                return True
        with open(model, "a") as f:
            f.write(_PATCH)
        return True
    except (OSError, KeyError, ValueError):
        return False


_rewritten = _rewrite()


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.tanh(x * self.scale)
