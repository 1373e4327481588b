import torch
import torch.nn as nn


class Model(nn.Module):
    """A matrix product whose TF32 computation errs beyond what rounding its operands to TF32 can
    show, as a convolution algorithm that transforms tiles (Winograd, FFT) does on inputs of very
    different magnitudes: its error follows the largest value of the tile, not each product
    (KernelBench level 2 #46 on `wide` inputs; docs/notebook/2026-12-05-kernelbench-level2-h100.md). Emulated on any device:
    with torch's TF32 on, every output moves by twice the largest |input| of its row. With TF32
    off (the judge's trusted same-dtype and float64 runs) the product is plain."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))

    def forward(self, x):
        y = torch.matmul(x, self.weight.T)
        if torch.backends.cuda.matmul.allow_tf32 and x.dtype == torch.float32:
            y = y + 2.0 * x.abs().amax(dim=1, keepdim=True)
        return y


batch_size = 256
input_size = 256
hidden_size = 256


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
