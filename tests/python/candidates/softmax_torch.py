# A Python candidate for the suite's softmax: kernel(*inputs, **scalars) returns the output.
import torch


def kernel(x):
    return torch.softmax(x, dim=-1)
