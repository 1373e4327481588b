#!/usr/bin/env python3
"""bench/suite-table.py on real results: documents that `kjudge eval` writes on cpu (rmsnorm's fast
kernel, a wrong softmax, matmul_bias_relu's fast kernel), the H100 loop run kept in
bench/results/h200/2026-12-07-h100-loop-workdir.tar.gz (its workdir and its best result document),
and synthetic edits of them. Checks the table's structure and arithmetic against the documents
(every party's row, each speedup and CI equal to the document's, the fraction of the speed of
light equal to the judge's own figure, the loop's best per iteration equal to its journal's) and
the classification of each target (met, MISSED, not measured) as a figure crosses its line.

Usage: tests/suite_table_test.py KJUDGE REPO WORKDIR
"""
import copy
import json
import math
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

KJUDGE, REPO, WORK = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
SCRIPT = REPO / "bench" / "suite-table.py"
checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    checks += 1


def evaluate(problem, candidate, name, *flags):
    out = WORK / f"{name}.json"
    r = subprocess.run([KJUDGE, "eval", problem, str(candidate), "--json", str(out), "--db", str(WORK / "store.db"),
                        "--torch", "none", *flags], capture_output=True, text=True)
    check(out.is_file(), f"kjudge eval {problem} {candidate} wrote {out} (exit {r.returncode}: {r.stderr[-2000:]})")
    return json.loads(out.read_text())


def write(doc, name):
    p = WORK / f"{name}.json"
    p.write_text(json.dumps(doc))
    return p


def table(*args):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)
    check(r.returncode == 0, f"suite-table.py {args} exits 0: {r.stderr[-2000:]}")
    return r.stdout


def section(text, title):
    start = text.find(f"\n## {title}\n")
    check(start >= 0, f"a section '## {title}'")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def rows(text):
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("|---")]


def table_with(text, first_columns):
    """The rows of the one Markdown table in text whose header starts with first_columns."""
    lines = text.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith("| " + " | ".join(first_columns) + " |")]
    check(len(heads) == 1, f"one table headed {first_columns} (found {len(heads)})")
    body = []
    for x in lines[heads[0] + 2:]:
        if not x.startswith("| "):
            break
        body.append(x)
    return rows("\n".join(body))


def target(text, name):
    found = [r for r in rows(section(text, "Targets")) if r[0] == name]
    check(len(found) == 1, f"one target row '{name}' (found {len(found)})")
    return found[0]


def fmt_sp(sp):
    return f"{sp['median']:.3f} [{sp['ci95'][0]:.3f}, {sp['ci95'][1]:.3f}]"


def add_party(doc, name, ratio=1.5):
    """A party slower than the candidate by `ratio` on every case, the candidate's speedup over it
    `ratio` [ratio - 0.1, ratio + 0.1]; the cases' strongest parties stay as they are."""
    for c in doc["timing"]["cases"]:
        b = copy.deepcopy(c["baselines"][0])
        for k in ("median_s", "q25_s", "q75_s", "min_s", "max_s"):
            b[k] = c["candidate"][k] * ratio
        b["name"], b["speedup"] = name, {"median": ratio, "ci95": [ratio - 0.1, ratio + 0.1]}
        c["baselines"].append(b)


def set_strongest(doc, case_index, name, ratio, ci):
    """Make party `name` the case's strongest, the candidate `ratio` [ci] against it."""
    c = doc["timing"]["cases"][case_index]
    b = next(b for b in c["baselines"] if b["name"] == name)
    b["median_s"] = c["candidate"]["median_s"] * ratio
    b["speedup"] = c["speedup"] = {"median": ratio, "ci95": ci}
    c["strongest"] = name


# ---------------------------------------------------------------- a real rmsnorm result on cpu


def test_rmsnorm_cpu():
    doc = evaluate("rmsnorm", REPO / "examples/rmsnorm/fast.cpp", "rmsnorm-fast", "--budget", "0.5", "--hidden", "2")
    check(doc["verdict"]["status"].startswith("ok_"), "the fast rmsnorm is correct")
    path = WORK / "rmsnorm-fast.json"
    name = "rmsnorm f32"

    # Targets are for an H100/H200 run: a cpu document is listed, not counted.
    t = table(path)
    for tgt in ("rmsnorm f32: >= 90% of the copy ceiling on the large cases",
                "rmsnorm f32: >= 1.0x the strongest party on every case",
                "rmsnorm f32: correct on every public and hidden case"):
        r = target(t, tgt)
        check(r[1] == "not measured" and "no H100/H200 document" in r[3], f"{tgt} not counted from cpu: {r}")

    t = table(path, "--any-device")
    sec = section(t, name)
    check(f"### {doc['env']['cpu']} (cpu), {doc['created_at']}" in sec, "the machine and the date head the document")
    check("No loop run recorded." in sec, "no loop run for rmsnorm")
    check(doc["timing"]["ci_method"] in sec, "the section says how the CIs were computed")
    parties = table_with(sec, ["case", "party"])
    summaries = table_with(sec, ["case", "candidate median us [q25, q75]"])
    check(len(parties) == sum(1 + len(c["baselines"]) for c in doc["timing"]["cases"]), "one row per party and case")
    check(len(summaries) == len(doc["timing"]["cases"]), "one summary row per case")
    for c in doc["timing"]["cases"]:
        label = f"{c['id']} {c['shape']}"
        party_rows = [r for r in parties if r[0] == label]
        check(len(party_rows) == 1 + len(c["baselines"]), f"{label}: one row per party ({len(party_rows)})")
        for b in c["baselines"]:
            r = next(r for r in party_rows if r[1].replace("**", "").split(" (")[0] == b["name"])
            check(r[5] == fmt_sp(b["speedup"]), f"{label} {b['name']}: speedup {r[5]} is the document's")
            check((b["name"] == c["strongest"]) == ("(strongest)" in r[1]), f"{label} {b['name']}: strongest marked")
        summary = [r for r in summaries if r[0] == label and r[3] == c["strongest"]]
        check(len(summary) == 1, f"{label}: one summary row")
        s = summary[0]
        check(s[4] == fmt_sp(c["speedup"]), f"{label}: speedup vs strongest {s[4]} == document {fmt_sp(c['speedup'])}")
        sol = float(s[2].split("%")[0])
        check(abs(sol - 100 * c["achieved"]["fraction_of_ceiling"]) <= 0.051,
              f"{label}: {sol}% of speed of light is the judge's {100 * c['achieved']['fraction_of_ceiling']:.3f}%")

    r = target(t, "rmsnorm f32: >= 1.0x the strongest party on every case")
    slow = [c for c in doc["timing"]["cases"] if c["speedup"]["median"] < 1.0]
    if slow:
        check(r[1] == "**MISSED**", f"a case below 1.0x is missed: {r}")
    else:
        check(r[1] == "not measured" and "parties not run: torch:eager" in r[3], f"torch:eager did not run: {r}")
    r = target(t, "rmsnorm f32: correct on every public and hidden case")
    n_hidden = sum(1 for c in doc["cases"] if c["kind"] == "hidden")
    check(r[1] == "met" and f"3 public, {n_hidden} hidden" in r[2], f"correct: {r}")
    r = target(t, "rmsnorm f32: peak device memory not above the strongest baseline's")
    check(r[1] == "not measured" and "no memory section" in r[3], f"cpu has no memory section: {r}")
    return doc


def test_rmsnorm_edits(doc):
    name = "rmsnorm f32: >= 1.0x the strongest party on every case"
    d = copy.deepcopy(doc)
    add_party(d, "torch:eager")
    for i, c in enumerate(d["timing"]["cases"]):
        if c["speedup"]["median"] < 1.0:
            set_strongest(d, i, c["strongest"], 1.05, [1.01, 1.1])
    r = target(table(write(d, "rms-all-parties"), "--any-device"), name)
    check(r[1] == "met", f"every party ran, every case >= 1.0x: met ({r})")

    met = copy.deepcopy(d)
    set_strongest(d, 1, "torch:eager", 0.9, [0.88, 0.92])
    t = table(write(d, "rms-0.9x"), "--any-device")
    r = target(t, name)
    c = d["timing"]["cases"][1]
    check(r[1] == "**MISSED**", f"0.9x against torch:eager: missed ({r})")
    check(f"{c['id']} {c['shape']}: 0.900x [0.880, 0.920] vs torch:eager" in r[3], f"the missed case named: {r[3]}")

    # Of two runs of one problem and dtype, the targets read the later one, whatever the order given.
    met["created_at"], d["created_at"] = "2026-12-01T00:00:00Z", "2026-12-01T00:00:01Z"
    r = target(table(write(d, "rms-later"), write(met, "rms-earlier"), "--any-device"), name)
    check(r[1] == "**MISSED**" and r[4].endswith("2026-12-01T00:00:01Z"), f"the later document counts ({r})")
    met["created_at"] = "2026-12-01T00:00:02Z"
    r = target(table(write(d, "rms-later"), write(met, "rms-earlier"), "--any-device"), name)
    check(r[1] == "met" and r[4].endswith("2026-12-01T00:00:02Z"), f"the later document counts ({r})")

    mib = 2**20
    parties = ["reference", "cpu_fast", "torch:eager"]
    d["memory"] = {"candidate_peak_bytes": 100 * mib, "baseline_peak_bytes": {p: 200 * mib for p in parties}}
    mem = "rmsnorm f32: peak device memory not above the strongest baseline's"
    r = target(table(write(d, "rms-mem-ok"), "--any-device"), mem)
    check(r[1] == "met" and "100.0 MiB vs torch:eager 200.0 MiB" in r[2], f"peak below the strongest's: met ({r})")
    d["memory"]["candidate_peak_bytes"] = 300 * mib
    r = target(table(write(d, "rms-mem-high"), "--any-device"), mem)
    check(r[1] == "**MISSED**" and f"candidate 300.0 MiB ({300 * mib} B) above" in r[3], f"peak above: missed ({r})")
    d["memory"] = {"candidate_peak_bytes": 100 * mib, "baseline_peak_bytes": {"reference": 200 * mib}}
    r = target(table(write(d, "rms-mem-partial"), "--any-device"), mem)
    check(r[1] == "not measured" and "peak not measured" in r[3], f"the strongest's peak absent ({r})")

    # A rejected candidate's figures are never a win, even where the document kept its timing.
    d = copy.deepcopy(doc)
    d["verdict"] = {"status": "hack", "rule": "some_rule", "reasons": ["a synthetic rejection"]}
    t = table(write(d, "rms-rejected"), "--any-device")
    sec = section(t, "rmsnorm f32")
    check("**REJECTED: hack** (rule `some_rule`)" in sec, "the rejection is said")
    for c in d["timing"]["cases"]:
        check(fmt_sp(c["speedup"]) not in sec, f"{c['id']}: no speedup figure for a rejected candidate")
        for b in c["baselines"]:
            check(fmt_sp(b["speedup"]) not in sec, f"{c['id']} {b['name']}: no speedup over a party")
    check("- (rejected: hack)" in sec, "the summary says rejected in place of the speedup")
    for tgt in (name, "rmsnorm f32: correct on every public and hidden case"):
        r = target(t, tgt)
        check(r[1] == "**MISSED**" and "REJECTED: hack" in r[3], f"{tgt}: missed for a rejection ({r})")


# ---------------------------------------------------------------- a real rejection, a real matmul


def test_rejected_softmax():
    doc = evaluate("softmax", REPO / "tests/candidates/wrong_softmax_off_by_scale.cpp", "softmax-wrong",
                   "--no-timing", "--hidden", "2")
    check(doc["verdict"]["status"] == "wrong_result", "the off-by-scale softmax is wrong")
    t = table(WORK / "softmax-wrong.json", "--any-device")
    check("**REJECTED: wrong_result**" in section(t, "softmax f32"), "the section says rejected")
    r = target(t, "softmax f32: correct on every public and hidden case")
    check(r[1] == "**MISSED**" and "wrong_result" in r[3], f"a wrong result misses correctness ({r})")


def test_matmul():
    doc = evaluate("matmul_bias_relu", REPO / "examples/matmul_bias_relu/fast.cpp", "matmul-fast",
                   "--budget", "0.5", "--hidden", "2")
    check(doc["verdict"]["status"].startswith("ok_"), "the fast matmul is correct")
    square = "matmul_bias_relu f32: >= 0.95x the strongest party at 4096^3"
    odd = "matmul_bias_relu f32: >= 1.0x the strongest party on the odd shapes (a dimension not a multiple of 16)"
    t = table(WORK / "matmul-fast.json", "--any-device")
    r = target(t, square)
    check(r[1] == "not measured" and "no such case" in r[3], f"no 4096^3 case on cpu ({r})")
    odd_cases = [c for c in doc["timing"]["cases"] if any(v % 16 for v in c["symbols"].values())]
    check(len(odd_cases) >= 1, "the cpu bench has an odd shape")
    r = target(t, odd)
    for c in odd_cases:
        check(f"{c['id']} {c['shape']}: {c['speedup']['median']:.3f}x [" in r[2], f"{c['id']}'s speedup listed: {r}")

    d = copy.deepcopy(doc)
    add_party(d, "torch:eager")
    even = next(i for i, c in enumerate(d["timing"]["cases"]) if c not in odd_cases)
    d["timing"]["cases"][even]["symbols"] = {"M": 4096, "N": 4096, "K": 4096}
    set_strongest(d, even, "torch:eager", 0.96, [0.95, 0.97])
    r = target(table(write(d, "mm-0.96"), "--any-device"), square)
    check(r[1] == "met", f"0.96x at 4096^3 meets 0.95x ({r})")
    set_strongest(d, even, "torch:eager", 0.94, [0.93, 0.95])
    r = target(table(write(d, "mm-0.94"), "--any-device"), square)
    check(r[1] == "**MISSED**" and "0.940x [0.930, 0.950] vs torch:eager" in r[3], f"0.94x misses ({r})")
    for i, c in enumerate(d["timing"]["cases"]):
        if c in odd_cases or i != even:
            set_strongest(d, i, "torch:eager", 1.02, [1.0, 1.04])
    r = target(table(write(d, "mm-odd-ok"), "--any-device"), odd)
    check(r[1] == "met", f"odd shapes at 1.02x: met ({r})")
    j = next(i for i, c in enumerate(d["timing"]["cases"]) if any(v % 16 for v in c["symbols"].values()))
    set_strongest(d, j, "torch:eager", 0.99, [0.97, 1.01])
    r = target(table(write(d, "mm-odd-0.99"), "--any-device"), odd)
    check(r[1] == "**MISSED**", f"an odd shape at 0.99x: missed ({r})")


# ---------------------------------------------------------------- the H100 loop run and its result


def test_h100_loop():
    with tarfile.open(REPO / "bench/results/h200/2026-12-07-h100-loop-workdir.tar.gz") as tf:
        tf.extractall(WORK / "loop", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    wd = WORK / "loop" / "loop-softmax"
    best = wd / "results" / "i0004-p00.json"
    doc = json.loads(best.read_text())
    t = table(best, WORK / "rmsnorm-fast.json", "--loop", wd)

    copy_name = "softmax bf16: >= 90% of the copy ceiling on the large cases"
    r = target(t, copy_name)
    c0 = doc["timing"]["cases"][0]
    frac, ceiling = c0["achieved"]["fraction_of_ceiling"], c0["achieved"]["ceiling_gbps"]
    check(frac < 0.9, "the kept H100 run is below 90% of the copy ceiling on its largest case")
    check(r[1] == "**MISSED**", f"below 90%: missed ({r})")
    check(f"({100 * frac:.1f}%)" in r[3] and f"{ceiling:.0f} GB/s copy ceiling" in r[3]
          and f"strongest party {c0['strongest']}" in r[3], f"the missed figure with the ceiling and party: {r[3]}")
    check("profile: candidate: 1 kernel(s)" in r[3], f"the kernel census is quoted: {r[3]}")
    r = target(t, "softmax bf16: >= 1.0x the strongest party on every case")
    check(r[1] == "not measured" and "torch:compile:max-autotune" in r[3], f"no torch party in the loop's run: {r}")

    d = copy.deepcopy(doc)
    c = d["timing"]["cases"][0]
    c["candidate"]["median_s"] = c["achieved"]["bytes"] / (0.95 * ceiling * 1e9)
    r = target(table(write(d, "h100-95pct")), copy_name)
    check(r[1] == "met" and "= 95.0%" in r[2], f"95% of the copy ceiling: met ({r})")

    # The loop beside the table: the best after each iteration as the journal has it.
    sec = section(t, "softmax bf16")
    events = [json.loads(x) for x in (wd / "journal.jsonl").read_text().splitlines() if x.strip()]
    run_id = next(e for e in events if e["event"] == "started")["config"]["id"]
    check(f"#### Loop run {run_id}" in sec, "the loop run sits in softmax bf16's section")
    loop_rows = {r[0]: r for r in table_with(sec, ["iteration", "request"])}
    beams = [e for e in events if e["event"] == "beam"]
    check(len(beams) >= 2, "the kept run has several iterations")
    for e in beams:
        b = e["best"]
        want = f"{b['time_s'] * 1e6:.1f}, {b['median']:.3f}x (estimate, no CI)"
        got = loop_rows.get(str(e["iteration"]))
        check(got is not None and got[4] == want, f"iteration {e['iteration']}: best {got} == journal {want}")
        check(got[6] == ("yes" if e["improved"] else "no"), f"iteration {e['iteration']}: improvement flag")
    unfinished = max(e["iteration"] for e in events if e["event"] == "iteration")
    if unfinished > beams[-1]["iteration"]:
        check(loop_rows[str(unfinished)][4] == "(unfinished)", "the interrupted iteration is unfinished")
    for e in events:
        if e["event"] == "committed":
            check(f"{e['id']} " in sec and f"commit {e['commit'][:12]}" in sec, f"accepted {e['id']} with its commit")
    check("No loop run recorded." in section(t, "rmsnorm f32"), "rmsnorm has no loop run")

    # scripts/baseline-table.py, whose reading the suite table shares, takes a document without CIs.
    r = subprocess.run([sys.executable, str(REPO / "scripts/baseline-table.py"), str(best)], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"baseline-table.py reads a document without CIs: {r.stderr[-2000:]}")
    check(f"| {c0['speedup']['median']:.3f} (estimate, no CI) |" in r.stdout, "its speedup marked an estimate")

    # The bf16 geometric mean over softmax, layernorm and rmsnorm, every party run.
    def bf16(problem, headline):
        x = copy.deepcopy(doc)
        x["problem"]["name"] = problem
        for p in ("torch:eager", "torch:compile:default", "torch:compile:max-autotune-no-cudagraphs",
                  "torch:compile:max-autotune"):
            add_party(x, p, 3.0)
        x["speedup"]["median"] = headline
        return write(x, f"geo-{problem}")

    name = "bf16 geometric mean over softmax, layernorm, rmsnorm: >= 1.3x"
    r = target(table(bf16("softmax", 1.5), bf16("layernorm", 1.2), bf16("rmsnorm", 1.4)), name)
    gm = (1.5 * 1.2 * 1.4) ** (1 / 3)
    check(r[1] == "met" and f"geometric mean {gm:.3f}x" in r[2], f"geomean {gm:.3f}: met ({r})")
    r = target(table(bf16("softmax", 1.5), bf16("layernorm", 1.2), bf16("rmsnorm", 0.9)), name)
    gm = (1.5 * 1.2 * 0.9) ** (1 / 3)
    check(r[1] == "**MISSED**" and f"{gm:.3f}x < 1.3x" in r[3], f"geomean {gm:.3f}: missed ({r})")
    r = target(table(bf16("softmax", 1.5), bf16("rmsnorm", 1.4)), name)
    check(r[1] == "not measured" and "layernorm" in r[3], f"without layernorm: not measured ({r})")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    doc = test_rmsnorm_cpu()
    test_rmsnorm_edits(doc)
    test_rejected_softmax()
    test_matmul()
    test_h100_loop()
    print(f"suite table: {checks} checks passed")
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
