#!/usr/bin/env python3
"""The KernelBench A/A validations recorded under bench/results/ (the logs of `kjudge validate --all`
in its default configuration, kb-validate-level*.txt; diagnostic runs are named otherwise), the
latest judgement of each problem, counted per level against both criteria: the issue's band
(ratio in [0.98, 1.02]) and validate's own verdict (the band and a 95% CI that contains 1,
decided at full precision: a CI printed as [0.9999, 1.0000] may exclude 1), with the sets of
worker processes each judgement's rounds were split between (1 before the cuda default became 3
on 2026-12-03: one set's CI covers only that set's processes,
docs/notebook/2026-12-03-worker-epochs.md). The logs are read from the archives under
RESULTS_DIR (archive/DATE-GPU.tar.xz: the archives in name order, i.e. by date, each one's
members in path order) and then from the loose files under RESULTS_DIR (path order), so a later
run of a problem replaces an earlier one; every run is listed. A file that `kjudge import
kernelbench` refused (a `kjudge import: PATH: reason` line in a kb-import-level*.txt log, e.g. a
random reference) counts as refused, with its reason, unless a later log judged it; it is
neither judged nor left to do.

Usage: bench/kb-validation-summary.py [RESULTS_DIR] [--kb DIR] [--todo LEVEL]
  RESULTS_DIR  default bench/results/h200
  --kb DIR     KernelBench's levels (default .kb/KernelBench): lists the problems not yet judged
  --todo LEVEL prints only the file names of LEVEL not yet judged, one per line, in KernelBench's
               order (scripts/gpu-check.sh, KJ_KB_NEXT: each call validates the next ones)
"""
import glob
import os
import re
import sys
import tarfile

LINE = re.compile(r"^(kb[/.](level\d+)[/.](\S+))\s+(ok|FAIL)\s+ratio ([\d.]+)\s+95% CI \[([\d.]+), ([\d.]+)\]")
SETS = re.compile(r"(\d+) sets of workers")
FAIL_OTHER = re.compile(r"^(kb[/.](level\d+)[/.](\S+))\s+FAIL\s+(?!ratio)(.*)$")
REFUSED = re.compile(r"^kjudge import: (?:\S*/)?([^/\s]+)\.py: (.*)$")
IMPORT_LOG = re.compile(r"kb-import-(level\d+)")


def natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def is_log(path):
    name = os.path.basename(path)
    return name.endswith(".txt") and name.startswith(("kb-validate-level", "kb-import-level"))


def logs(results):
    """(name, lines) of every validate and import log, oldest first: the archives' members, then
    the loose files. name is the path relative to RESULTS_DIR; ARCHIVE:MEMBER for an archived log."""
    for archive in sorted(glob.glob(os.path.join(results, "**", "*.tar.xz"), recursive=True), key=natural):
        rel = os.path.relpath(archive, results)
        with tarfile.open(archive, "r:xz") as tar:
            members = [m for m in tar.getmembers() if m.isfile() and is_log(m.name)]
            for m in sorted(members, key=lambda m: natural(m.name)):
                text = tar.extractfile(m).read().decode("utf-8", errors="replace")
                yield f"{rel}:{m.name}", text.splitlines(keepends=True)
    loose = [f for f in glob.glob(os.path.join(results, "**", "kb-*-level*.txt"), recursive=True) if is_log(f)]
    for f in sorted(loose, key=natural):
        with open(f, encoding="utf-8", errors="replace") as fh:
            yield os.path.relpath(f, results), fh.readlines()


def main(argv):
    results = "bench/results/h200"
    kb = ".kb/KernelBench"
    args = list(argv)
    todo = None
    for opt in ("--kb", "--todo"):
        if opt in args:
            i = args.index(opt)
            if i + 1 >= len(args):
                print(f"kb-validation-summary: {opt} needs a value", file=sys.stderr)
                return 2
            if opt == "--kb":
                kb = args[i + 1]
            else:
                todo = args[i + 1]
            del args[i:i + 2]
    if args:
        results = args[0]
    latest, history = {}, {}
    n_validate = 0
    for src, lines in logs(results):
        import_level = IMPORT_LOG.search(os.path.basename(src))
        n_validate += not import_level
        for line in lines:
            if import_level:
                m = REFUSED.match(line)
                if m:
                    latest[(import_level.group(1), m.group(1))] = {
                        "ratio": None, "band": False, "ci1": False, "status": "refused", "file": src,
                        "reason": "refused at import: " + m.group(2).strip()[:100], "sets": None}
                continue
            m = LINE.match(line)
            if m:
                _, lvl, name, status, med, lo, hi = m.groups()
                med, lo, hi = float(med), float(lo), float(hi)
                sets = SETS.search(line)
                rec = {"ratio": med, "lo": lo, "hi": hi, "band": 0.98 <= med <= 1.02,
                       "ci1": status == "ok", "status": status, "file": src,
                       "sets": int(sets.group(1)) if sets else 1}
            else:
                m = FAIL_OTHER.match(line)
                if not m:
                    continue
                _, lvl, name, reason = m.groups()
                rec = {"ratio": None, "band": False, "ci1": False, "status": "FAIL", "file": src,
                       "reason": reason.strip()[:120], "sets": None}
            latest[(lvl, name)] = rec
            history.setdefault((lvl, name), []).append(rec)
    refused = {k: r for k, r in latest.items() if r["status"] == "refused"}
    for k in refused:
        del latest[k]
    if todo is not None:
        d = os.path.join(kb, todo)
        if not os.path.isdir(d):
            print(f"kb-validation-summary: no {d}", file=sys.stderr)
            return 2
        for f in sorted((f for f in os.listdir(d) if f.endswith(".py")), key=natural):
            if (todo, f[:-3]) not in latest and (todo, f[:-3]) not in refused:
                print(f)
        return 0
    levels = sorted({k[0] for k in latest} | {d for d in ("level1", "level2") if os.path.isdir(os.path.join(kb, d))},
                    key=natural)
    print(f"# KernelBench A/A validations in {results} ({n_validate} log files)\n")
    print("| level | problem | latest ratio [95% CI] | sets of workers | in [0.98, 1.02] | validate (band and CI contains 1) | runs | latest file |")
    print("|---|---|---|---|---|---|---|---|")
    for (lvl, name) in sorted(latest, key=lambda k: (natural(k[0]), natural(k[1]))):
        r = latest[(lvl, name)]
        fig = f"{r['ratio']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}]" if r["ratio"] is not None else r.get("reason", "")
        print(f"| {lvl} | {name} | {fig} | {r['sets'] if r['sets'] else '-'} | {'yes' if r['band'] else 'no'} | {r['status']} | "
              f"{len(history[(lvl, name)])} | {r['file']} |")
    print()
    for lvl in levels:
        judged = [k for k in latest if k[0] == lvl]
        band = sum(latest[k]["band"] for k in judged)
        strict = sum(latest[k]["band"] and latest[k]["ci1"] for k in judged)
        d = os.path.join(kb, lvl)
        total = None
        missing = []
        if os.path.isdir(d):
            names = sorted((f[:-3] for f in os.listdir(d) if f.endswith(".py")), key=natural)
            total = len(names)
            missing = [n for n in names if (lvl, n) not in latest and (lvl, n) not in refused]
        n_refused = sum(1 for k in refused if k[0] == lvl)
        print(f"{lvl}: {len(judged)} judged of {total if total is not None else '?'}"
              + (f" ({n_refused} refused at import)" if n_refused else "") + "; "
              f"in [0.98, 1.02]: {band}; validated (the band and the CI containing 1): {strict}")
        by_sets = {}
        for k in judged:
            by_sets.setdefault(latest[k]["sets"], []).append(k)
        for n in sorted(x for x in by_sets if x):
            ks = by_sets[n]
            print(f"  judged with {n} set{'s' if n > 1 else ''} of workers: {len(ks)}; in the band: "
                  f"{sum(latest[k]['band'] for k in ks)}; validated: {sum(latest[k]['band'] and latest[k]['ci1'] for k in ks)}")
        # Every run, not only the latest per problem: how often a nominal 95% CI of an in-band A/A
        # excludes 1, per number of sets (about 5% if the CI is calibrated).
        runs_by_sets = {}
        for k in judged:
            for r in history[k]:
                if r["ratio"] is not None:
                    runs_by_sets.setdefault(r["sets"], []).append((k[1], r))
        for n in sorted(runs_by_sets):
            rs = runs_by_sets[n]
            in_band = [(name, r) for name, r in rs if r["band"]]
            excl = [name.split("_")[0] for name, r in in_band if not r["ci1"]]
            print(f"  every run with {n} set{'s' if n > 1 else ''}: {len(rs)} runs, {len(in_band)} in the band, of which "
                  f"{len(excl)} with a CI excluding 1 ({100.0 * len(excl) / max(1, len(in_band)):.0f}%)"
                  + (f": {' '.join(excl)}" if excl else ""))
        for k in sorted((k for k in refused if k[0] == lvl), key=lambda k: natural(k[1])):
            print(f"  {k[1]}: {refused[k]['reason']} ({refused[k]['file']})")
        if missing:
            print(f"  not yet judged ({len(missing)}): " + " ".join(n.split("_")[0] for n in missing))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
