# Wrong on a TF32-permitted problem: a tail-handling bug, the last tile of 16 weight rows is never
# multiplied (as a kernel with a 16-row tile and no remainder loop would when the size is not
# what it was written for). TF32's permission must not cover it.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))

    def forward(self, x):
        return torch.matmul(x, self.weight[:-16].T).sum(dim=1, keepdim=True)
