# KernelBench-format test problem whose reference is finite only on positive inputs: hidden cases
# with signed distributions are redrawn, then skipped, never judged against NaN.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over rows of log(x), keeping the reduced dimension out: y[i] = sum_j log(x[i, j])."""

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.log(x).sum(dim=1) + y


n = 48
m = 300


def get_inputs():
    return [torch.rand(n, m) + 0.5, torch.randn(n)]


def get_init_inputs():
    return []
