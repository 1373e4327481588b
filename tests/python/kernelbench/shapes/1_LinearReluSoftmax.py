# KernelBench-format problem written for kjudge's tests (--shape-scale): size constants
# (batch_size, in_features, out_features) that can be scaled, and one that cannot (softmax_dim:
# an axis, not a size; scaled to 2 it fails on a 2-D tensor and is dropped with a note).
import torch
import torch.nn as nn


class Model(nn.Module):
    """softmax(relu(x @ W^T + b)) over the features."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.softmax(torch.relu(self.linear(x)), dim=softmax_dim)


batch_size = 8
in_features = 32
out_features = 16
softmax_dim = 1


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
