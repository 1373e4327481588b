# KernelBench-format test problem on symmetric matrices (as KernelBench level 1 #13).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for symmetric A and B."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


N = 40


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [(A + A.T) / 2, (B + B.T) / 2]


def get_init_inputs():
    return []
