# Twenty times the error that the problem's own TF32 computation makes
# (tests/python/kernelbench/tf32_native): beyond what TF32 permits, however it is computed.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))

    def forward(self, x):
        return torch.matmul(x, self.weight.T) + 40.0 * x.abs().amax(dim=1, keepdim=True)
