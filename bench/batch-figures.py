#!/usr/bin/env python3
"""Figures of `kjudge batch` from a gpu-check `batch` stage (scripts/gpu-check.sh), or any state
directory of a batch (docs/batch.md).

  batch-figures.py overhead DIR    DIR holds eval-loop.txt ("NAME rc=N wall_s=S" per `kjudge eval`,
                                   then "batch rc=N wall_s=S"), eval-NAME.json and suite-state/:
                                   the wall time per evaluation of a loop of `kjudge eval` calls
                                   against one `kjudge batch` over the same candidates, and the
                                   part of it outside the evaluations' own time to verdict.
  batch-figures.py kb STATE [LOOP] time per candidate of a batch (time to verdict: median,
                                   quartiles, range), where it goes (phases_s, medians), the ratio
                                   of the whole verdict to its timing phase, and evaluations per
                                   hour on one device (from the batch's wall time in LOOP's
                                   "kb-batch rc=N wall_s=S" line, else from the median).

Every figure says how many evaluations it is over; quartiles are printed only from 4 on.
"""
import glob
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def walls(loop_file):
    out = {}
    if not os.path.exists(loop_file):
        return out
    for line in open(loop_file):
        parts = line.split()
        if len(parts) < 3:
            continue
        fields = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        out[parts[0]] = (int(fields.get("rc", "-1")), float(fields.get("wall_s", "nan")))
    return out


def spread(xs):
    xs = sorted(xs)
    if not xs:
        return "none"
    text = f"median {statistics.median(xs):.1f} s over {len(xs)}, range [{xs[0]:.1f}, {xs[-1]:.1f}]"
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4)
        text += f", quartiles [{q[0]:.1f}, {q[2]:.1f}]"
    return text


def device_of(docs):
    """The GPU's name (env.gpu on cuda), else the CPU's (env.cpu), from the first document with one."""
    for d in docs:
        env = d.get("env") or {}
        if isinstance(env.get("gpu"), str) and env["gpu"]:
            return env["gpu"]
    for d in docs:
        env = d.get("env") or {}
        if isinstance(env.get("cpu"), str) and env["cpu"]:
            return f"{env['cpu']} (cpu)"
    return "unknown device"


def results(state):
    files = sorted(glob.glob(os.path.join(state, "results", "**", "*.json"), recursive=True))
    return [d for d in (load(p) for p in files) if d]


def overhead(base):
    w = walls(os.path.join(base, "eval-loop.txt"))
    evals = {k: v for k, v in w.items() if k not in ("batch", "kb-batch")}
    ev_docs = [load(os.path.join(base, f"eval-{k}.json")) for k in evals]
    ev_docs = [d for d in ev_docs if d]
    b_docs = results(os.path.join(base, "suite-state"))
    print(f"# kjudge batch against a loop of kjudge eval ({device_of(ev_docs + b_docs)})")
    if not evals or "batch" not in w:
        print("no figures: eval-loop.txt lacks the eval or batch lines")
        return
    loop_wall = sum(v[1] for v in evals.values())
    loop_ttv = sum(d.get("time_to_verdict_s") or 0 for d in ev_docs)
    n = len(evals)
    print(f"- loop of kjudge eval: {n} evaluations, {loop_wall:.1f} s wall, {loop_wall / n:.1f} s each; "
          f"outside the time to verdict: {(loop_wall - loop_ttv) / n:.2f} s each "
          f"(rc: {' '.join(str(v[0]) for v in evals.values())})")
    rc, b_wall = w["batch"]
    nb = len(b_docs)
    b_ttv = sum(d.get("time_to_verdict_s") or 0 for d in b_docs)
    if nb:
        print(f"- kjudge batch: {nb} evaluations, {b_wall:.1f} s wall, {b_wall / nb:.1f} s each; "
              f"outside the time to verdict: {(b_wall - b_ttv) / nb:.2f} s each (rc={rc})")
        print(f"- per evaluation, batch minus loop: {b_wall / nb - loop_wall / n:+.2f} s "
              f"(one run each: no spread; the evaluations' own times differ run to run)")
    else:
        print(f"- kjudge batch: no results (rc={rc})")


def kb(state, loop_file=None):
    docs = results(state)
    print(f"# KernelBench batch ({device_of(docs)}): {len(docs)} candidates with a result in {state}")
    if not docs:
        return
    counts = {}
    for d in docs:
        s = (d.get("verdict") or {}).get("status", "?")
        counts[s] = counts.get(s, 0) + 1
    print("- verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    ttv = [d["time_to_verdict_s"] for d in docs if isinstance(d.get("time_to_verdict_s"), (int, float))]
    print(f"- time to verdict: {spread(ttv)}")
    phases = {}
    for d in docs:
        for k, v in (d.get("phases_s") or {}).items():
            if isinstance(v, (int, float)):
                phases.setdefault(k, []).append(v)
    if phases:
        print("- phases (median s): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in phases.items()))
    ratios = [d["time_to_verdict_s"] / d["phases_s"]["timing"] for d in docs
              if isinstance(d.get("time_to_verdict_s"), (int, float))
              and isinstance((d.get("phases_s") or {}).get("timing"), (int, float)) and d["phases_s"]["timing"] > 0]
    if ratios:
        r = sorted(ratios)
        print(f"- whole verdict / timing phase: median {statistics.median(r):.2f} over {len(r)}, "
              f"range [{r[0]:.2f}, {r[-1]:.2f}]")
    w = walls(loop_file) if loop_file else {}
    if "kb-batch" in w and w["kb-batch"][1] > 0:
        rc, wall = w["kb-batch"]
        print(f"- evaluations per hour on this one device: {3600 * len(docs) / wall:.0f} "
              f"({len(docs)} in {wall:.0f} s of batch wall time, rc={rc})")
    elif ttv:
        print(f"- evaluations per hour on this one device: {3600 / statistics.median(ttv):.0f} (from the median)")


def main(argv):
    if len(argv) >= 2 and argv[0] == "overhead":
        overhead(argv[1])
    elif len(argv) >= 2 and argv[0] == "kb":
        kb(argv[1], argv[2] if len(argv) > 2 else None)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
