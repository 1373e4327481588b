# GPU MODE-format submission for argsort_ties: tied elements in reverse index order. A correct
# answer that differs from ref_kernel's (stable) one wherever a row has ties: an elementwise
# comparison with ref_kernel rejects it; the problem's check_implementation accepts it.
import torch


def custom_kernel(data):
    n = data.shape[-1]
    # Ascending by value, descending by index among equal values (values are small integers).
    key = data.to(torch.float64) * (n + 1) - torch.arange(n, device=data.device, dtype=torch.float64)
    return torch.argsort(key, dim=-1, stable=True)
