# KernelBench-form candidate for 2_LinearGELU: the same parameters (so the seeded initialisation
# gives it the reference's weights), computed as one addmm and an erf-based GELU.
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        return 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
