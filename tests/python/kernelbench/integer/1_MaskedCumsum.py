# KernelBench-format test problem with a bool input (as KernelBench level 1 #93): the mask must be
# drawn with both values, or a candidate that ignores it passes.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cumulative sum along dim 1 of the elements where the mask is true."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=self.dim)


batch_size = 32
length = 200


def get_inputs():
    x = torch.rand(batch_size, length)
    mask = torch.randint(0, 2, x.shape).bool()
    return [x, mask]


def get_init_inputs():
    return [1]
