# GPU MODE-format submission for argsort_ties that sorts descending: check_implementation rejects
# it with its own message ("row 0 is not sorted ...").
import torch


def custom_kernel(data):
    return torch.argsort(data, dim=-1, descending=True, stable=True)
