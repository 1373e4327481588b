import torch
import torch.nn as nn


class Model(nn.Module):
    """A product, dropout and softmax: KernelBench level 2 #66 at a small size. Its module is in
    training mode as constructed, so dropout draws a new mask on every call."""

    def __init__(self, n, p):
        super().__init__()
        self.matmul = nn.Linear(n, n)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return torch.softmax(self.dropout(self.matmul(x)), dim=1)


def get_inputs():
    return [torch.rand(16, 64)]


def get_init_inputs():
    return [64, 0.2]
