# KernelBench-format test problem on upper triangular matrices (as KernelBench level 1 #14): a
# kernel may rely on the zero triangle, so the judge's draws must keep it.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = triu(A @ B) for upper triangular A and B."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.triu(torch.matmul(A, B))


N = 48


def get_inputs():
    return [torch.triu(torch.rand(N, N)), torch.triu(torch.rand(N, N))]


def get_init_inputs():
    return []
