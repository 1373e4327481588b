# GPU MODE-format reference for the argsort_ties test problem. The answer is not unique (ties):
# ref_kernel returns the stable order, check_implementation accepts any order that sorts each row.
import torch
from task import input_t, output_t


def generate_input(rows: int, n: int, levels: int, seed: int) -> input_t:
    gen = torch.Generator(device="cpu")
    gen.manual_seed(seed)
    # Few distinct values: every row has many ties.
    x = torch.randint(0, levels, (rows, n), generator=gen).to(torch.float32)
    return x.to("cuda") if torch.cuda.is_available() else x


def ref_kernel(data: input_t) -> output_t:
    return torch.argsort(data, dim=-1, stable=True)


def check_implementation(data: input_t, output: output_t):
    x = data
    if output.shape != x.shape:
        return False, f"shape {tuple(output.shape)}, expected {tuple(x.shape)}"
    if output.dtype != torch.int64:
        return False, f"dtype {output.dtype}, expected torch.int64"
    idx = output.to(x.device)
    expect = torch.arange(x.shape[-1], device=x.device).expand_as(x)
    if not torch.equal(torch.sort(idx, dim=-1).values, expect):
        bad = int((torch.sort(idx, dim=-1).values != expect).any(dim=-1).nonzero()[0])
        return False, f"row {bad} is not a permutation of 0..{x.shape[-1] - 1}"
    v = torch.gather(x, -1, idx)
    dec = v[:, 1:] < v[:, :-1]
    if dec.any():
        r, c = (int(t) for t in dec.nonzero()[0])
        return False, f"row {r} is not sorted: x[out] decreases at position {c + 1} ({float(v[r, c])} > {float(v[r, c + 1])})"
    return True, ""
