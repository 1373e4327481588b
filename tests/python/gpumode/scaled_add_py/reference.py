# GPU MODE-format reference for the scaled_add test problem: generate_input, ref_kernel and
# check_implementation, as that format defines them.
import torch
from task import input_t, output_t


def generate_input(rows: int, cols: int, seed: int) -> input_t:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    a = torch.randn(rows, cols, device=device, dtype=torch.float32, generator=gen)
    b = torch.randn(rows, cols, device=device, dtype=torch.float32, generator=gen)
    return a, b


def ref_kernel(data: input_t) -> output_t:
    a, b = data
    return a * 0.5 + b


def check_implementation(data: input_t, output: output_t):
    expected = ref_kernel(data)
    if output.shape != expected.shape:
        return False, f"shape {tuple(output.shape)}, expected {tuple(expected.shape)}"
    if not torch.allclose(output, expected, rtol=1e-5, atol=1e-6):
        return False, "mismatch"
    return True, ""
