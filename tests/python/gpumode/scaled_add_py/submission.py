# GPU MODE-format submission for scaled_add (custom_kernel(data) -> output).
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return torch.addcmul(b, a, torch.full((), 0.5, dtype=a.dtype, device=a.device))
