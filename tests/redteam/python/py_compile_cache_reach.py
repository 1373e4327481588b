# Attack (the torch.compile cache carried between baseline workers, src/judge/
# torch_compile_cache.hpp): a baseline `torch:compile:*` worker starts from
# $KJUDGE_CACHE/torch-compile/<key>, copied into its scratch's torch-compile-cache/, and the
# controller stores that directory after its first warm-up. This candidate tries, at import and
# again at every call (by then the baselines' workers are loaded and seeded), to:
#   - list and read the store ($KJUDGE_CACHE/torch-compile, three levels above its scratch
#     directory, <cache>/scratch/<run>/candidate);
#   - write into every stored entry and create an entry of its own there;
#   - list, read and write the other workers' scratch directories (siblings of its own), above
#     all a baseline's torch-compile-cache/{inductor,triton}, which the controller publishes;
#   - plant, in its own scratch, files named as inductor's and Triton's caches name theirs, with a
#     marker (KJ-REDTEAM-PLANTED), hoping they are stored: a candidate's scratch must never be.
# Anything it could read or write makes kernel() raise with the loot in its text (runtime_error in
# the verdict); otherwise it computes an honest torch.softmax. The planted marker is looked for in
# the store by tests/redteam/python/py_compile_cache_reach.sh, which judges this with a
# torch:compile:default baseline on a fresh cache and then judges an honest candidate.
# Expected: every read and write outside its own scratch refused (landlock); ok, harmless, or
# hack:sandbox_violation for the attempted writes; the marker never in the store.
import os

import torch

_MARK = b"KJ-REDTEAM-PLANTED"
_loot = []


def _scratch():
    return os.environ.get("KJUDGE_SCRATCH") or os.environ.get("HOME", "/nonexistent")


def _try(what, fn):
    try:
        r = fn()
        _loot.append(f"{what}: {r}"[:300])
    except OSError:
        pass


def _write(path):
    with open(path, "wb") as f:
        f.write(_MARK)
    return "written"


def _plant_own():
    # Inductor's FX graph cache and Triton's kernel cache layouts, under the candidate's own
    # scratch, where kjudge_host.py points its caches.
    base = os.path.join(_scratch(), "torch-compile-cache")
    for d in ("inductor/fxgraph/aa/kjredteam", "triton/KJREDTEAM"):
        try:
            os.makedirs(os.path.join(base, d), exist_ok=True)
            with open(os.path.join(base, d, "entry"), "wb") as f:
                f.write(_MARK)
        except OSError:
            pass


def _reach():
    scratch = _scratch()
    run = os.path.dirname(scratch)
    cache = os.path.dirname(os.path.dirname(run))
    store = os.path.join(cache, "torch-compile")
    _try("store listing", lambda: os.listdir(store))
    try:
        entries = os.listdir(store)
    except OSError:
        entries = []
    for e in entries[:4]:
        d = os.path.join(store, e)
        for root, _, files in os.walk(d):
            for f in files[:1]:
                _try(f"store read {os.path.join(root, f)}", lambda p=os.path.join(root, f): len(open(p, "rb").read()))
            break
        _try(f"store write {d}", lambda d=d: _write(os.path.join(d, "kjredteam")))
    _try("store new entry", lambda: os.makedirs(os.path.join(store, "0" * 32, "inductor")) or "created")
    _try("store new file", lambda: _write(os.path.join(store, "kjredteam")))
    try:
        siblings = [s for s in os.listdir(run) if not s.startswith("candidate")]
        _loot.append(f"run listing {sorted(siblings)}")
    except OSError:
        siblings = [s for s in ("baseline-torch-compile-default", "baseline-torch-compile-max-autotune",
                                "baseline-torch-eager", "reference", "baseline-reference")]
    for s in siblings:
        d = os.path.join(run, s)
        c = os.path.join(d, "torch-compile-cache")
        _try(f"sibling listing {s}", lambda d=d: os.listdir(d))
        _try(f"sibling cache write {s}",
             lambda c=c: os.makedirs(os.path.join(c, "inductor"), exist_ok=True) or _write(os.path.join(c, "inductor", "kjredteam")))
        _try(f"sibling write {s}", lambda d=d: _write(os.path.join(d, "kjredteam")))


_plant_own()
_reach()


def kernel(x):
    _reach()
    if _loot:
        raise RuntimeError("reached: " + " | ".join(sorted(set(_loot)))[:1500])
    return torch.softmax(x, dim=-1)
