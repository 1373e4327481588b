# KernelBench-form candidate (ModelNew) for integer/1_MaskedCumsum, written for kjudge's tests:
# the mask applied with where instead of a product.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        return torch.cumsum(torch.where(mask, x, torch.zeros_like(x)), dim=self.dim)
