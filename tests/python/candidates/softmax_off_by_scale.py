# A wrong Python candidate for the suite's softmax: every output 1e-3 too large (relative), the
# Python twin of tests/candidates/wrong_softmax_off_by_scale.cpp (rejected at the model level too).
import torch


def kernel(x):
    return torch.softmax(x, dim=-1) * (1 + 1e-3)
