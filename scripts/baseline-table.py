#!/usr/bin/env python3
"""Side-by-side table of every party of kjudge result documents (kjudge.result/1).

Usage: scripts/baseline-table.py RESULT.json... > table.md

One row per (problem, dtype, bench case, party): median time with its interquartile range, the
candidate's speedup against that party (median and 95% CI of the paired per-round ratio),
achieved GB/s and GFLOP/s from the problem's cost model, and the fraction of the device ceiling
(the copy bandwidth for memory-bound problems, the matmul rate of the precision in use for
compute-bound ones). Torch parties also show their compile time, recompiles and graph breaks.

The reading functions below are also used by bench/suite-table.py.
"""
import json
import sys


def fmt_us(s):
    return f"{s * 1e6:.1f}" if isinstance(s, (int, float)) else "-"


def fmt_speedup(sp):
    """A paired speedup {median, ci95}: the median with its 95% CI, or the median marked as an
    estimate where the document carries no CI (fewer than 6 rounds)."""
    if not sp or not isinstance(sp.get("median"), (int, float)):
        return "-"
    ci = sp.get("ci95")
    if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
        return f"{sp['median']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{sp['median']:.3f} (estimate, no CI)"


def load_document(path):
    """(document, None) or (None, why it could not be read)."""
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, str(e)


def python_info(d):
    """Baseline name -> its `python` section (compile time, recompiles, graph breaks)."""
    return {b.get("name"): b["python"] for b in d.get("baselines") or [] if isinstance(b, dict) and b.get("python")}


def is_compute_bound(d):
    return (d.get("problem") or {}).get("name", "").startswith("matmul")


def flop_ceiling(d):
    """(ceiling key, GFLOP/s) of the matmul rate of the precision in use: bf16, TF32 where the
    run permitted it, else FP32; the GFLOP/s is None where the document has no ceilings."""
    dt = (d.get("problem") or {}).get("dtype")
    tf32 = (d.get("torch") or {}).get("tf32") or (d.get("tolerance") or {}).get("tf32")
    key = "bf16_gflops" if dt == "bf16" else ("tf32_gflops" if tf32 else "fp32_gflops")
    return key, (d.get("ceilings") or {}).get(key)


def party_rows(d, case):
    """One dict per party of a timing case, the candidate first: name, median/q25/q75 (s), the
    candidate's paired speedup over it (None for the candidate) and a note on torch parties."""
    py = python_info(d)
    tf32 = (d.get("torch") or {}).get("tf32")
    cand = case.get("candidate") or {}
    rows = [dict(party="candidate", median=cand.get("median_s"), q25=cand.get("q25_s"), q75=cand.get("q75_s"),
                 speedup=None, note="")]
    for b in case.get("baselines", []):
        note = ""
        info = py.get(b["name"])
        if info:
            note = f"compile {info.get('compile_s', 0):.1f} s"
            for k in ("recompiles", "graph_breaks", "recompiles_during_timing"):
                if info.get(k) is not None:
                    note += f", {k.replace('_', ' ')} {info[k]}"
        if b["name"].startswith("torch"):
            note += f"; TF32 {'on' if tf32 else 'off'}"
        rows.append(dict(party=b["name"], median=b.get("median_s"), q25=b.get("q25_s"), q75=b.get("q75_s"),
                         speedup=b.get("speedup") or {}, note=note))
    return rows


def throughput(d, case, median):
    """(GB/s, GFLOP/s, fraction of the ceiling, its label) of a party's median on a case, from
    the cost model's bytes and flops; None where a figure is missing."""
    a = case.get("achieved") or {}
    nbytes, flops = a.get("bytes"), a.get("flops")
    copy = a.get("ceiling_gbps") or (d.get("ceilings") or {}).get("copy_gbps")
    gbps = nbytes / median / 1e9 if nbytes and median else None
    gflops = flops / median / 1e9 if flops and median else None
    if is_compute_bound(d):
        key, ceiling = flop_ceiling(d)
        if gflops and ceiling:
            return gbps, gflops, gflops / ceiling, key[:-7]
    if gbps and copy:
        return gbps, gflops, gbps / copy, "copy"
    return gbps, gflops, None, None


def print_document(path, d):
    prob = d.get("problem", {})
    name, dt = prob.get("name", "?"), prob.get("dtype", "?")
    verdict = d.get("verdict", {})
    timing = d.get("timing") or {}
    if not timing.get("cases"):
        reason = "; ".join(verdict.get("reasons", [])[:1])
        print(f"| {name} | {dt} | - | - | no timing: {verdict.get('status')} {verdict.get('rule') or ''} {reason} | | | | | |")
        return
    for c in timing["cases"]:
        for r in party_rows(d, c):
            gbps, gflops, frac, label = throughput(d, c, r["median"])
            fr = f"{100 * frac:.0f}% of {label}" if frac is not None else "-"
            spt = fmt_speedup(r["speedup"]) if r["speedup"] else "-"
            print(f"| {name} | {dt} | {c.get('id')} {c.get('shape', '')} | {r['party']} | {fmt_us(r['median'])} "
                  f"[{fmt_us(r['q25'])}, {fmt_us(r['q75'])}] | {spt} | {gbps and round(gbps) or '-'} | "
                  f"{gflops and round(gflops) or '-'} | {fr} | {r['note']} |")
    sp = d.get("speedup") or {}
    if sp:
        print(f"| {name} | {dt} | all | headline | verdict {verdict.get('status')} | {fmt_speedup(sp)} "
              f"vs {sp.get('baseline')} | | | | rounds {timing.get('rounds')}, mode {timing.get('mode')} |")


def main(paths):
    print("| problem | dtype | case | party | median us [q25, q75] | candidate speedup [95% CI] | GB/s | GFLOP/s | "
          "% of ceiling | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        d, err = load_document(path)
        if d is None:
            print(f"| {path} | | | | unreadable: {err} | | | | | |")
            continue
        print_document(path, d)


if __name__ == "__main__":
    main(sys.argv[1:])
