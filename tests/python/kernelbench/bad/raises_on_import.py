# A KernelBench-format file that fails when imported: `kjudge import` must say where (exit 2).
import torch
import torch.nn as nn

dim = 128
weights = torch.randn(dim).reshape(3, -1)  # 128 is not a multiple of 3: raises RuntimeError


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(dim)]


def get_init_inputs():
    return []
