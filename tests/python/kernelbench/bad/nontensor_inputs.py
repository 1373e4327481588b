# A KernelBench-format file whose get_inputs returns something that is not a tensor.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return ["not a tensor"]


def get_init_inputs():
    return []
