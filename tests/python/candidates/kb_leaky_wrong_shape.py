# KernelBench-form candidate whose output has another shape than the reference's.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale, slope):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return (x * self.scale)[:, :-1]
