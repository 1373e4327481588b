#!/usr/bin/env python3
"""What torch.compile's on-disk caches save a fresh process (the judge's torch baselines start one
per set of workers and per candidate; src/judge/torch_compile_cache.hpp).

For each compile mode: a first process compiles with an empty cache directory (cold), a second
starts from a copy of the first one's caches (seeded, as kjudge seeds a baseline's worker), a
third again from nothing (cold again: the spread of a cold compile). Each prints the first call's
time (the compile), the steady call's time and inductor's FX graph cache counters. One JSON line
per process goes to stdout and, when OUT is given, to OUT/compile-cache-warm-start.jsonl as it
comes (a run cut short keeps what it measured).

  compile-cache-warm-start.py [--device cuda|cpu] [--modes default,max-autotune-no-cudagraphs]
                              [--size 4096] [--out DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
device, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
dtype = torch.bfloat16 if device == "cuda" else torch.float32
class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.softmax(torch.relu(a @ b) * 0.125, dim=-1)
g = torch.Generator(device="cpu").manual_seed(0)
a = torch.randn(n, n, generator=g).to(device=device, dtype=dtype)
b = torch.randn(n, n, generator=g).to(device=device, dtype=dtype)
f = torch.compile(Model(), mode=mode)
def timed():
    if device == "cuda": torch.cuda.synchronize()
    s = time.perf_counter(); f(a, b)
    if device == "cuda": torch.cuda.synchronize()
    return time.perf_counter() - s
t_import = time.perf_counter() - t0
first = timed()
steady = min(timed() for _ in range(5))
from torch._dynamo.utils import counters
print(json.dumps({"import_s": t_import, "first_call_s": first, "steady_call_s": steady,
                  "inductor": dict(counters["inductor"]), "aot_autograd": dict(counters["aot_autograd"]),
                  "torch": torch.__version__,
                  "gpu": torch.cuda.get_device_name() if device == "cuda" else None}))
"""


def run(py, device, mode, size, cache, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TRITON_"))}
    env.update(TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"), TRITON_CACHE_DIR=os.path.join(cache, "triton"),
               HOME=home, TMPDIR=home)
    s = time.perf_counter()
    p = subprocess.run([py, "-c", CHILD, device, mode, str(size)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - s
    line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    try:
        out = json.loads(line)
    except ValueError:
        out = {"error": (p.stderr or p.stdout)[-800:]}
    out["process_wall_s"] = wall
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--modes", default="default,max-autotune-no-cudagraphs")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", default=os.environ.get("OUT"))
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    sink = open(os.path.join(args.out, "compile-cache-warm-start.jsonl"), "a") if args.out else None
    root = tempfile.mkdtemp(prefix="kj-ccws-")
    try:
        for mode in args.modes.split(","):
            cold = os.path.join(root, mode, "cold")
            for kind in ("cold", "seeded", "cold-again"):
                home = os.path.join(root, mode, kind + "-home")
                os.makedirs(home)
                cache = os.path.join(root, mode, kind + "-cache")
                if kind == "cold":
                    cache = cold
                elif kind == "seeded":
                    shutil.copytree(cold, cache)
                rec = {"mode": mode, "kind": kind, "device": args.device, "size": args.size}
                rec.update(run(args.python, args.device, mode, args.size, cache, home))
                line = json.dumps(rec)
                print(line, flush=True)
                if sink:
                    sink.write(line + "\n")
                    sink.flush()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
