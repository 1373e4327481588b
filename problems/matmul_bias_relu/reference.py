# PyTorch formulation of matmul_bias_relu (the torch:* baselines run this, eager and
# torch.compile'd). TF32 follows the run's setting (on by default).
import torch


def reference(a, b, bias):
    return torch.relu(torch.addmm(bias, a, b))
