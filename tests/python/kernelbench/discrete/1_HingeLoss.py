# KernelBench-format test problem with +-1 float targets (as KernelBench level 1 #100): a kernel
# may rely on the targets being +-1, so the judge's draws must keep them to those two values.
import torch
import torch.nn as nn


class Model(nn.Module):
    """mean(clamp(1 - predictions * targets, min=0)) for targets in {-1, 1}."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 256


def get_inputs():
    return [torch.rand(batch_size, 8), torch.randint(0, 2, (batch_size, 8)).float() * 2 - 1]


def get_init_inputs():
    return []
