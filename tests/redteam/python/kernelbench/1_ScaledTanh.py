# A tiny problem in KernelBench's file format for tests/redteam/python/py_rewrite_model.sh: a
# module `Model`, module-level size constants, get_inputs() and get_init_inputs().
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = tanh(x * scale)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.tanh(x * self.scale)


rows = 128
cols = 512


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [0.5]
