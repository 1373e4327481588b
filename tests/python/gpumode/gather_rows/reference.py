# GPU MODE-format reference for the gather_rows test problem.
import torch
from task import input_t, output_t


def generate_input(rows: int, cols: int, picks: int, seed: int) -> input_t:
    gen = torch.Generator()
    gen.manual_seed(seed)
    table = torch.randn(rows, cols, dtype=torch.float32, generator=gen)
    idx = torch.randint(0, rows, (picks,), dtype=torch.int64, generator=gen)
    return table, idx


def ref_kernel(data: input_t) -> output_t:
    table, idx = data
    return table[idx]


def check_implementation(data: input_t, output: output_t):
    expected = ref_kernel(data)
    if output.shape != expected.shape:
        return False, f"shape {tuple(output.shape)}, expected {tuple(expected.shape)}"
    if not torch.equal(output, expected):
        return False, "mismatch"
    return True, ""
