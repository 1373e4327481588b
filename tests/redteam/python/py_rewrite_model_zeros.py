# The second step of tests/redteam/python/py_rewrite_model.sh: a ModelNew for kb/redteam/1_ScaledTanh
# that returns zeros. Judged against the problem's real model.py it is wrong_result:tolerance;
# judged after py_rewrite_model.py has rewritten model.py (pre-fix), it is accepted, and faster.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()

    def forward(self, x):
        return torch.zeros_like(x)
