# PyTorch formulation of batched_qr (the torch:* baselines run this, eager and torch.compile'd):
# torch.geqrf is LAPACK's xGEQRF (cpu) / cuSOLVER or MAGMA (cuda) on every matrix of the batch,
# returning (H, tau) in the compact Householder form the problem asks for. Its H comes back in
# column-major (LAPACK) strides; the judge makes results contiguous inside the timed call.
import torch


def reference(A):
    h, tau = torch.geqrf(A)
    return h, tau
