# KernelBench-form candidate for 3_RowSumLog: log of the row product would overflow, so it sums
# logs like the reference, in one fused expression.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, y):
        return torch.sum(torch.log(x), dim=1).add_(y)
