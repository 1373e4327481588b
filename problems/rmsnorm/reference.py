# PyTorch formulation of rmsnorm (the torch:* baselines run this, eager and torch.compile'd).
# Written out rather than F.rms_norm, as models do; both lower to the same inductor kernel.
import torch


def reference(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight
