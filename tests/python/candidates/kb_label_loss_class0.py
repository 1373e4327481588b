# KernelBench-form candidate (ModelNew) for integer/2_LabelLoss, written for kjudge's tests:
# wrong, it scores every row against class 0. Right only where every label is 0.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, labels):
        return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean()
