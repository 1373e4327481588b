# KernelBench-format test problem with an int64 label input (as KernelBench level 1 #95): labels
# must be drawn over the classes, or a candidate that assumes class 0 passes.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cross-entropy of logits against integer class labels."""

    def __init__(self):
        super().__init__()

    def forward(self, logits, labels):
        return torch.nn.functional.cross_entropy(logits, labels)


batch_size = 256
num_classes = 10


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
