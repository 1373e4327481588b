#!/usr/bin/env python3
"""Side-by-side table of every party of kjudge result documents (kjudge.result/1).

Usage: scripts/baseline-table.py RESULT.json... > table.md

One row per (problem, dtype, bench case, party): median time with its interquartile range, the
candidate's speedup against that party (median and 95% CI of the paired per-round ratio),
achieved GB/s and GFLOP/s from the problem's cost model, and the fraction of the device ceiling
(the copy bandwidth for memory-bound problems, the matmul rate of the precision in use for
compute-bound ones). Torch parties also show their compile time, recompiles and graph breaks.
"""
import json
import sys


def fmt_us(s):
    return f"{s * 1e6:.1f}" if isinstance(s, (int, float)) else "-"


def main(paths):
    print("| problem | dtype | case | party | median us [q25, q75] | candidate speedup [95% CI] | GB/s | GFLOP/s | "
          "% of ceiling | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        try:
            d = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"| {path} | | | | unreadable: {e} | | | | | |")
            continue
        prob = d.get("problem", {})
        name, dt = prob.get("name", "?"), prob.get("dtype", "?")
        verdict = d.get("verdict", {})
        timing = d.get("timing") or {}
        if not timing.get("cases"):
            reason = "; ".join(verdict.get("reasons", [])[:1])
            print(f"| {name} | {dt} | - | - | no timing: {verdict.get('status')} {verdict.get('rule') or ''} {reason} | | | | | |")
            continue
        ceil = d.get("ceilings") or {}
        tf32 = (d.get("torch") or {}).get("tf32")
        tol_tf32 = (d.get("tolerance") or {}).get("tf32")
        py = {}
        for b in d.get("baselines") or []:
            if isinstance(b, dict) and b.get("python"):
                py[b.get("name")] = b["python"]
        compute_bound = name.startswith("matmul")
        if compute_bound:
            key = "bf16_gflops" if dt == "bf16" else ("tf32_gflops" if tf32 or tol_tf32 else "fp32_gflops")
            flop_ceiling = ceil.get(key)
        for c in timing["cases"]:
            a = c.get("achieved") or {}
            nbytes, flops = a.get("bytes"), a.get("flops")
            copy = a.get("ceiling_gbps") or ceil.get("copy_gbps")
            cand = c.get("candidate") or {}
            rows = [("candidate", cand.get("median_s"), cand.get("q25_s"), cand.get("q75_s"), None, "")]
            for b in c.get("baselines", []):
                sp = b.get("speedup") or {}
                note = ""
                info = py.get(b["name"])
                if info:
                    note = f"compile {info.get('compile_s', 0):.1f} s"
                    for k in ("recompiles", "graph_breaks", "recompiles_during_timing"):
                        if info.get(k) is not None:
                            note += f", {k.replace('_', ' ')} {info[k]}"
                if b["name"].startswith("torch"):
                    note += f"; TF32 {'on' if tf32 else 'off'}"
                rows.append((b["name"], b.get("median_s"), b.get("q25_s"), b.get("q75_s"), sp, note))
            for party, med, q25, q75, sp, note in rows:
                gbps = nbytes / med / 1e9 if nbytes and med else None
                gflops = flops / med / 1e9 if flops and med else None
                if compute_bound and gflops and flop_ceiling:
                    frac = f"{100 * gflops / flop_ceiling:.0f}% of {key[:-7]}"
                elif gbps and copy:
                    frac = f"{100 * gbps / copy:.0f}% of copy"
                else:
                    frac = "-"
                spt = f"{sp['median']:.3f} [{sp['ci95'][0]:.3f}, {sp['ci95'][1]:.3f}]" if sp else "-"
                print(f"| {name} | {dt} | {c.get('id')} {c.get('shape', '')} | {party} | {fmt_us(med)} [{fmt_us(q25)}, "
                      f"{fmt_us(q75)}] | {spt} | {gbps and round(gbps) or '-'} | {gflops and round(gflops) or '-'} | "
                      f"{frac} | {note} |")
        sp = d.get("speedup") or {}
        if sp:
            print(f"| {name} | {dt} | all | headline | verdict {verdict.get('status')} | {sp.get('median', 0):.3f} "
                  f"[{sp['ci95'][0]:.3f}, {sp['ci95'][1]:.3f}] vs {sp.get('baseline')} | | | | rounds {timing.get('rounds')}, "
                  f"mode {timing.get('mode')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
