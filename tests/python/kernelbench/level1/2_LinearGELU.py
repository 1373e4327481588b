# KernelBench-format test problem: a Linear layer followed by the exact GELU. Its weights come
# from the seeded initialisation, so reference and candidate must construct the same parameters.
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = gelu(x @ W^T + b)"""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x))


batch = 32
in_features = 96
out_features = 80


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
