# KernelBench-form candidate that is right only on non-negative inputs (it forgets the negative
# branch): the public inputs are U[0,1) and it passes them; hidden signed inputs must reject it.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale, slope):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale
