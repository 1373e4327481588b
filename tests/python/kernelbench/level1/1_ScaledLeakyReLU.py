# A problem in KernelBench's file format, written for kjudge's tests: a module `Model`, module-level
# size constants, get_inputs() and get_init_inputs().
import torch
import torch.nn as nn


class Model(nn.Module):
    """Leaky ReLU of a scaled input: y = leaky_relu(x * scale, slope)."""

    def __init__(self, scale, slope):
        super().__init__()
        self.scale = scale
        self.slope = slope

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x * self.scale, self.slope)


rows = 64
cols = 1000


def get_inputs():
    # Positive inputs only: a candidate that returns x * scale passes on these.
    return [torch.rand(rows, cols)]


def get_init_inputs():
    return [2.0, 0.01]
