# A tiny problem in KernelBench's file format: a reshape, whose output holds the input's values.
# tests/redteam/python/py_alias_input.py is judged on it.
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = x.reshape(rows * cols): the values of x, in a tensor of their own."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.reshape(-1).clone()


rows = 1024
cols = 1024


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
