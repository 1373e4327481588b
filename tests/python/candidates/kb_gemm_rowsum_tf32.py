# Honest on a TF32-permitted problem: what a TF32 tensor-core matmul computes, emulated on any
# device: both operands (the input and the weight) rounded to TF32 (10 mantissa bits, round to
# nearest even), products and sums in float32. torch with TF32 on computes this on the GPU.
import torch
import torch.nn as nn


def _tf32(t):
    bits = t.contiguous().view(torch.int32)
    finite = (bits & 0x7F800000) != 0x7F800000
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return torch.where(finite, rounded, bits).view(torch.float32)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))

    def forward(self, x):
        return torch.matmul(_tf32(x), _tf32(self.weight).T).sum(dim=1, keepdim=True)
