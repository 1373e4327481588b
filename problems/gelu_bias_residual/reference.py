# PyTorch formulation of gelu_bias_residual (the torch:* baselines run this, eager and
# torch.compile'd): the exact (erf) GELU of x + bias, plus the residual.
import torch
import torch.nn.functional as F


def reference(x, bias, residual):
    return F.gelu(x + bias, approximate="none") + residual
