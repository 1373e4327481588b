# KernelBench-form candidate (ModelNew) for integer/1_MaskedCumsum, written for kjudge's tests:
# wrong, it ignores the mask. Right only where every mask element is true.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        return torch.cumsum(x, dim=self.dim)
