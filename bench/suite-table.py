#!/usr/bin/env python3
"""The suite table: does each kernel win, and which of the suite's targets are met.

Usage: bench/suite-table.py RESULT.json|DIR... [--loop WORKDIR]... [--any-device] [-o OUT.md]

Reads kjudge result documents (kjudge.result/1, docs/result-schema.md; a directory stands for
the *.json in it) and optionally search-loop workdirs (docs/proposer.md), and writes Markdown:

1. per problem and dtype, per document (headed by the machine and the date): every party's median
   with its interquartile range, the fraction of the speed of light, and the candidate's paired
   speedup over each party; per case the speedup against the case's strongest party with the
   document's 95% CI and the peak memory of the candidate against that party's;
2. the targets (docs/reports.md, "The suite table"), each met, MISSED or not measured, with the
   figures and, for a missed one, what the document shows (the case, the party, GB/s against the
   ceiling, the kernel census where the document has one);
3. per problem and dtype, the loop's trajectory: the best after each iteration, the families and
   the accepted improvements, or "no loop run recorded".

The per-party reading (spread, throughput, ceilings) is scripts/baseline-table.py's.
"""
import argparse
import importlib.util
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load_baseline_table():
    spec = importlib.util.spec_from_file_location("baseline_table", ROOT / "scripts" / "baseline-table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bt = _load_baseline_table()

MEMORY_BOUND = ("gelu_bias_residual", "layernorm", "rmsnorm", "softmax")
GEOMEAN_PROBLEMS = ("softmax", "layernorm", "rmsnorm")
MATMUL = "matmul_bias_relu"
# Every (problem, dtype) the targets name.
EXPECTED = [(p, dt) for p in MEMORY_BOUND for dt in ("f32", "bf16")] + [(MATMUL, "f32")]
TORCH_PARTIES = {
    "cuda": ("torch:eager", "torch:compile:default", "torch:compile:max-autotune-no-cudagraphs",
             "torch:compile:max-autotune"),
    "cpu": ("torch:eager",),
}
TARGET_GPUS = ("H100", "H200")
COPY_FRACTION = 0.90
GEOMEAN_TARGET = 1.3
MATMUL_SQUARE_TARGET = 0.95
# A matmul shape is "odd" when a dimension is not a multiple of this (no whole 16-wide tiles).
ODD_MULTIPLE = 16
MET, MISSED, NOT_MEASURED = "met", "MISSED", "not measured"


# ---------------------------------------------------------------- documents


class Doc:
    def __init__(self, path, d):
        self.path, self.d = path, d
        prob = d.get("problem") or {}
        self.problem, self.dtype = prob.get("name", "?"), prob.get("dtype", "?")
        self.device = d.get("device") or prob.get("device") or "?"
        env = d.get("env") or {}
        self.machine = env.get("gpu") or env.get("cpu") or (d.get("ceilings") or {}).get("identity") or "?"
        self.date = d.get("created_at") or "?"
        self.verdict = d.get("verdict") or {}
        self.status = self.verdict.get("status", "?")
        self.ok = self.status.startswith("ok_")
        timing = d.get("timing") or {}
        self.cases = timing.get("cases") or []
        self.timed = bool(self.cases) and self.verdict.get("timed", True) is not False
        self.rounds = timing.get("rounds")

    def on_target_gpu(self):
        return self.device == "cuda" and any(g in self.machine for g in TARGET_GPUS)

    def parties(self):
        """The baselines timed, in the order of the first case."""
        return [b.get("name") for b in (self.cases[0].get("baselines") or [])] if self.cases else []

    def rejected_line(self):
        v = self.verdict
        s = f"**REJECTED: {v.get('status')}**"
        if v.get("rule"):
            s += f" (rule `{v['rule']}`)"
        reasons = v.get("reasons") or []
        if reasons:
            s += f": {md(reasons[0])}"
        case = (v.get("evidence") or {}).get("case") or {}
        if case:
            s += f"; failing case {case.get('id')} {case.get('shape', '')}"
        return s


def md(text, limit=300):
    """A string from a document as one Markdown table cell."""
    t = str(text).replace("|", "\\|").replace("\n", " ")
    return t if len(t) <= limit else t[: limit - 3] + "..."


def read_documents(inputs):
    docs, skipped = [], []
    for arg in inputs:
        p = Path(arg)
        paths = sorted(p.glob("*.json")) if p.is_dir() else [p]
        for path in paths:
            d, err = bt.load_document(path)
            if d is None:
                skipped.append((path, f"unreadable: {err}"))
            elif not isinstance(d, dict) or d.get("schema") != "kjudge.result/1":
                skipped.append((path, "not a kjudge.result/1 document"))
            else:
                docs.append(Doc(path, d))
    return docs, skipped


# ---------------------------------------------------------------- figures


def fmt_bytes(n):
    if not isinstance(n, (int, float)):
        return "-"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{int(n)} B"


def ci_of(sp):
    ci = (sp or {}).get("ci95")
    ok = isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci)
    return ci if ok else None


def party_of(case, name):
    return next((b for b in case.get("baselines") or [] if b.get("name") == name), None)


def strongest_peak(doc, case):
    """(candidate's peak, the case's strongest party's peak, why not) from `memory`: an integer
    baseline_peak_bytes is the strongest baseline's; an object is per baseline name."""
    mem = doc.d.get("memory")
    if not isinstance(mem, dict):
        return None, None, "no memory section"
    cand, base = mem.get("candidate_peak_bytes"), mem.get("baseline_peak_bytes")
    if isinstance(base, dict):
        strongest = case.get("strongest")
        if strongest not in base:
            measured = ", ".join(f"{k} {fmt_bytes(v)}" for k, v in base.items()) or "none"
            return cand, None, f"{strongest}'s peak not measured (measured: {measured})"
        base = base[strongest]
    return cand, base, None


def census_line(doc, case_id, party):
    """What the kernel census (cuda, traced) shows for a party on a case, from its last set."""
    kc = (doc.d.get("timing") or {}).get("kernel_census") or {}
    sets = kc.get("sets") or []
    if not sets:
        return None
    e = ((sets[-1].get("parties") or {}).get(party) or {}).get(case_id)
    if not isinstance(e, dict):
        return None
    if e.get("error"):
        return f"{party}: census error {md(e['error'], 120)}"
    top = (e.get("by_name") or [{}])[0]
    s = (f"{party}: {e.get('kernels')} kernel(s), {(e.get('kernel_ns') or 0) / 1e3:.1f} us of kernels in a "
         f"{(e.get('window_ns') or 0) / 1e3:.1f} us window")
    if top.get("name"):
        s += f", longest {md(top['name'], 80)} ({(top.get('ns') or 0) / 1e3:.1f} us, grid {top.get('grid')}, " \
             f"block {top.get('block')})"
    return s


def profile_note(doc, case):
    """What the profile showed on a missed case: the kernel census of the candidate and the
    strongest party, and the candidate's ptxas spills; says so where the document has none."""
    lines = [census_line(doc, case.get("id"), p) for p in ("candidate", case.get("strongest"))]
    lines = [x for x in lines if x]
    spills = [r for r in ((doc.d.get("build") or {}).get("resources") or [])
              if (r.get("spill_stores") or 0) + (r.get("spill_loads") or 0) > 0]
    if spills:
        lines.append("ptxas spills: " + ", ".join(
            f"{md(r.get('kernel'), 60)} {r.get('spill_stores')} B stored / {r.get('spill_loads')} B loaded"
            for r in spills))
    return "; ".join(lines) if lines else "no kernel census in the document"


# ---------------------------------------------------------------- per-document tables


def ci_source(doc):
    method = (doc.d.get("timing") or {}).get("ci_method")
    s = ("Speedups: the median over rounds of the paired per-round ratio party time / candidate time (every party "
         "timed in the same rounds); 95% CIs as the document gives them, computed by the judge: "
         + (md(method, 200) if method else "a bootstrap over rounds (the document does not name its method)") + ".")
    no_ci = [c.get("id") for c in doc.cases if not ci_of(c.get("speedup"))]
    if no_ci:
        s += (f" No CI on {', '.join(no_ci)}: the document carries none ({doc.rounds} rounds; the judge gives a CI "
              "from 6 rounds), so that speedup is an estimate.")
    return s


def render_doc(doc):
    out = [f"### {md(doc.machine)} ({doc.device}), {doc.date}", ""]
    cand = doc.d.get("candidate") or {}
    out.append(f"Document `{doc.path}`; candidate `{md(cand.get('path', '?'))}` "
               f"(sha256 {str(cand.get('sha256', ''))[:12]}), verdict `{doc.status}`, mode "
               f"{(doc.d.get('timing') or {}).get('mode') or doc.d.get('mode')}, {doc.rounds} rounds.")
    out.append("")
    if not doc.ok:
        out += [doc.rejected_line() + " No speedup of this candidate counts.", ""]
    if not doc.timed:
        out += ["Not timed: no figures." if doc.ok else "No timing.", ""]
        return out
    head = doc.d.get("speedup") or {}
    if doc.ok and head:
        out += [f"Headline: {bt.fmt_speedup(head)} against {head.get('baseline')}.", ""]
    out += [ci_source(doc), ""]
    out += ["| case | party | median us [q25, q75] | GB/s | % of speed of light | candidate speedup over it [95% CI] |",
            "|---|---|---|---|---|---|"]
    for c in doc.cases:
        for r in bt.party_rows(doc.d, c):
            gbps, _, frac, label = bt.throughput(doc.d, c, r["median"])
            sol = f"{100 * frac:.1f}% of {label}" if frac is not None else "-"
            if r["speedup"] is None:
                sp = "(the candidate)"
            else:
                sp = bt.fmt_speedup(r["speedup"]) if doc.ok else "- (rejected)"
            name = f"**{r['party']}** (strongest)" if r["party"] == c.get("strongest") else r["party"]
            spread = f"{bt.fmt_us(r['median'])} [{bt.fmt_us(r['q25'])}, {bt.fmt_us(r['q75'])}]"
            out.append(f"| {c.get('id')} {c.get('shape', '')} | {name} | {spread} | {gbps and round(gbps) or '-'} | "
                       f"{sol} | {sp} |")
    out += ["", "| case | candidate median us [q25, q75] | % of speed of light | strongest party | "
            "speedup vs strongest [95% CI] | peak memory: candidate / strongest |", "|---|---|---|---|---|---|"]
    for c in doc.cases:
        k = c.get("candidate") or {}
        _, _, frac, label = bt.throughput(doc.d, c, k.get("median_s"))
        sol = f"{100 * frac:.1f}% of {label}" if frac is not None else "-"
        sp = bt.fmt_speedup(c.get("speedup")) if doc.ok else f"- (rejected: {doc.status})"
        mc, mb, why = strongest_peak(doc, c)
        mem = f"{fmt_bytes(mc)} / {fmt_bytes(mb)}" if why is None else f"{fmt_bytes(mc)} / - ({md(why, 120)})"
        spread = f"{bt.fmt_us(k.get('median_s'))} [{bt.fmt_us(k.get('q25_s'))}, {bt.fmt_us(k.get('q75_s'))}]"
        out.append(f"| {c.get('id')} {c.get('shape', '')} | {spread} | {sol} | {c.get('strongest')} | {sp} | {mem} |")
    out.append("")
    return out


# ---------------------------------------------------------------- targets


def required_parties(doc):
    """The parties the targets compare with: the reference, every torch party of the
    device, and the problem's own baselines for the device (the vendor library where it has
    one), read from problems/NAME/problem.toml."""
    req = ["reference"] + list(TORCH_PARTIES.get(doc.device, ()))
    spec = ROOT / "problems" / doc.problem / "problem.toml"
    if spec.is_file():
        import tomllib
        with open(spec, "rb") as f:
            for b in tomllib.load(f).get("baselines") or []:
                if b.get("device", doc.device) == doc.device and b.get("name"):
                    req.append(b["name"])
    return req


def missing_parties(doc):
    present = set(doc.parties())
    return [p for p in required_parties(doc) if p not in present]


def large_cases(doc):
    """Bench cases whose cost-model bytes are at least the last-level cache (cuda: L2, cpu: LLC),
    so they stream from memory; the largest case where the document has no cache size."""
    env = doc.d.get("env") or {}
    cache = env.get("l2_bytes") or ((doc.d.get("ceilings") or {}).get("details") or {}).get("l2_bytes") \
        or env.get("llc_bytes")
    sized = [(((c.get("achieved") or {}).get("bytes") or 0), c) for c in doc.cases]
    if isinstance(cache, (int, float)) and cache > 0:
        return [c for b, c in sized if b >= cache], f"bytes >= the {fmt_bytes(cache)} cache"
    top = max((b for b, _ in sized), default=0)
    return [c for b, c in sized if b == top and b > 0], "the largest case (no cache size in the document)"


def case_speed(c):
    """(the speedup against the case's strongest party, its text with the CI)."""
    sp = c.get("speedup") or {}
    m, ci = sp.get("median"), ci_of(sp)
    if not isinstance(m, (int, float)):
        return None, f"{c.get('id')} {c.get('shape', '')}: no speedup in the document"
    ci_txt = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else " (estimate, no CI)"
    return m, f"{c.get('id')} {c.get('shape', '')}: {m:.3f}x{ci_txt} vs {c.get('strongest')}"


def gate(doc, need_timing=True):
    """A reason the target cannot be judged from this document, or (MISSED, why) for a rejected
    candidate; None when it can."""
    if doc is None:
        return NOT_MEASURED, "no document"
    if not doc.ok:
        return MISSED, doc.rejected_line()
    if need_timing and not doc.timed:
        return NOT_MEASURED, "the candidate was not timed"
    return None


def with_parties(doc, status, figures, shows):
    """A target against the strongest party, met against the parties present, is not met until
    every party ran: one that did not could be the strongest."""
    miss = missing_parties(doc)
    if status == MET and miss:
        return NOT_MEASURED, figures, f"parties not run: {', '.join(miss)}"
    if miss:
        shows = "; ".join(x for x in (shows, f"parties not run: {', '.join(miss)}") if x)
    return status, figures, shows


def target_copy(doc):
    g = gate(doc)
    if g:
        return g[0], "", g[1]
    cases, which = large_cases(doc)
    figs, missed = [], []
    for c in cases:
        k = c.get("candidate") or {}
        gbps, _, frac, label = bt.throughput(doc.d, c, k.get("median_s"))
        if frac is None or label != "copy":
            return NOT_MEASURED, "", f"{c.get('id')}: no copy ceiling in the document"
        a = c.get("achieved") or {}
        ceiling = a.get("ceiling_gbps") or (doc.d.get("ceilings") or {}).get("copy_gbps")
        figs.append(f"{c.get('id')} {c.get('shape', '')}: {gbps:.0f} of {ceiling:.0f} GB/s = {100 * frac:.1f}%")
        if frac < COPY_FRACTION:
            s = party_of(c, c.get("strongest")) or {}
            sg, _, sf, _ = bt.throughput(doc.d, c, s.get("median_s"))
            strongest = c.get("strongest")
            if sf is not None:
                strongest += f" {sg:.0f} GB/s = {100 * sf:.1f}%"
            missed.append(f"{c.get('id')} {c.get('shape', '')}: {gbps:.0f} GB/s against the {ceiling:.0f} GB/s copy "
                          f"ceiling ({100 * frac:.1f}%), strongest party {strongest}; profile: {profile_note(doc, c)}")
    if not cases:
        return NOT_MEASURED, "", f"no large case ({which})"
    status = MISSED if missed else MET
    return status, "; ".join(figs) + f" (large: {which})", "; ".join(missed)


def target_every_case(doc, cases=None, floor=1.0):
    g = gate(doc)
    if g:
        return g[0], "", g[1]
    cases = doc.cases if cases is None else cases
    if not cases:
        return NOT_MEASURED, "", "no such case in the document"
    figs, missed = [], []
    for c in cases:
        m, txt = case_speed(c)
        figs.append(txt)
        if not isinstance(m, (int, float)) or m < floor:
            missed.append(f"{txt}; profile: {profile_note(doc, c)}")
    return with_parties(doc, MISSED if missed else MET, "; ".join(figs), "; ".join(missed))


def target_geomean(chosen):
    docs = [chosen.get((p, "bf16")) for p in GEOMEAN_PROBLEMS]
    absent = [p for p, d in zip(GEOMEAN_PROBLEMS, docs) if d is None]
    if absent:
        return NOT_MEASURED, "", f"no bf16 document for {', '.join(absent)}"
    for d in docs:
        g = gate(d)
        if g:
            return g[0], "", f"{d.problem} bf16: {g[1]}"
    heads = [(d, (d.d.get("speedup") or {})) for d in docs]
    if any(not isinstance(h.get("median"), (int, float)) or h["median"] <= 0 for _, h in heads):
        return NOT_MEASURED, "", "a document without a headline speedup"
    gm = math.exp(sum(math.log(h["median"]) for _, h in heads) / len(heads))
    figs = f"geometric mean {gm:.3f}x of " + ", ".join(
        f"{d.problem} {bt.fmt_speedup(h)} vs {h.get('baseline')}" for d, h in heads) + \
        " (each the document's headline: the geometric mean over its cases against each case's strongest party; " \
        "no CI is given for the mean of the three: each document's rounds are its own)"
    status, shows = (MET, "") if gm >= GEOMEAN_TARGET else (MISSED, f"{gm:.3f}x < {GEOMEAN_TARGET}x")
    miss = [f"{d.problem}: {', '.join(missing_parties(d))}" for d in docs if missing_parties(d)]
    if miss and status == MET:
        return NOT_MEASURED, figs, "parties not run: " + "; ".join(miss)
    if miss:
        shows = "; ".join(x for x in (shows, "parties not run: " + "; ".join(miss)) if x)
    return status, figs, shows


def target_memory(doc):
    g = gate(doc)
    if g:
        return g[0], "", g[1]
    figs, missed, unmeasured = [], [], []
    for c in doc.cases:
        mc, mb, why = strongest_peak(doc, c)
        if why or not isinstance(mc, (int, float)) or not isinstance(mb, (int, float)):
            unmeasured.append(f"{c.get('id')}: {why or 'no peak'}")
            continue
        figs.append(f"{c.get('id')}: {fmt_bytes(mc)} vs {c.get('strongest')} {fmt_bytes(mb)}")
        if mc > mb:
            missed.append(f"{c.get('id')}: candidate {fmt_bytes(mc)} ({int(mc)} B) above {c.get('strongest')} "
                          f"{fmt_bytes(mb)} ({int(mb)} B)")
    if missed:
        return with_parties(doc, MISSED, "; ".join(figs), "; ".join(missed + unmeasured))
    if unmeasured:
        return NOT_MEASURED, "; ".join(figs), "; ".join(unmeasured)
    return with_parties(doc, MET, "; ".join(figs), "")


def target_correct(doc):
    g = gate(doc, need_timing=False)
    if g:
        return g[0], "", g[1]
    by_kind = {}
    for c in doc.d.get("cases") or []:
        by_kind.setdefault(c.get("kind"), []).append(c)
    failed = [c for k in ("public", "hidden") for c in by_kind.get(k, []) if c.get("status") != "pass"]
    counts = {k: len(by_kind.get(k, [])) for k in ("public", "hidden")}
    figs = f"verdict {doc.status}; {counts['public']} public, {counts['hidden']} hidden cases"
    if failed:
        return MISSED, figs, "; ".join(f"{c.get('id')} {c.get('status')}: {md(c.get('message') or '', 120)}"
                                       for c in failed)
    if not counts["public"] or not counts["hidden"]:
        return NOT_MEASURED, figs, "no " + " or ".join(k for k, n in counts.items() if not n) + " case in the document"
    return MET, figs, ""


def target_cases(doc, pick, floor):
    """The speedup target on the bench cases `pick` selects."""
    g = gate(doc)
    if g:
        return g[0], "", g[1]
    return target_every_case(doc, [c for c in doc.cases if pick(c)], floor)


def odd(c):
    return any(isinstance(v, int) and v % ODD_MULTIPLE for v in (c.get("symbols") or {}).values())


def square_4096(c):
    s = c.get("symbols") or {}
    return all(s.get(k) == 4096 for k in ("M", "N", "K"))


def choose(docs, any_device):
    """The document each target reads per (problem, dtype): the latest (created_at) of an
    H100/H200 run, or of any machine with --any-device."""
    chosen = {}
    for d in sorted(docs, key=lambda d: d.date):
        if any_device or d.on_target_gpu():
            chosen[(d.problem, d.dtype)] = d
    return chosen


def targets(docs, any_device):
    chosen = choose(docs, any_device)
    rows = []

    def add(name, key, result):
        status, figs, shows = result
        others = sorted({d.machine for d in docs if key and (d.problem, d.dtype) == key})
        if shows == "no document" and others:
            shows = f"no H100/H200 document (only from: {', '.join(others)}; --any-device counts them)"
        doc = chosen.get(key) if key else None
        where = f"{doc.machine}, {doc.date}" if doc else "-"
        rows.append((name, status, figs, shows, where))

    for p in MEMORY_BOUND:
        for dt in ("f32", "bf16"):
            add(f"{p} {dt}: >= {100 * COPY_FRACTION:.0f}% of the copy ceiling on the large cases", (p, dt),
                target_copy(chosen.get((p, dt))))
    for p in MEMORY_BOUND:
        for dt in ("f32", "bf16"):
            add(f"{p} {dt}: >= 1.0x the strongest party on every case", (p, dt),
                target_every_case(chosen.get((p, dt))))
    add(f"bf16 geometric mean over {', '.join(GEOMEAN_PROBLEMS)}: >= {GEOMEAN_TARGET}x", None, target_geomean(chosen))
    mm = chosen.get((MATMUL, "f32"))
    add(f"{MATMUL} f32: >= {MATMUL_SQUARE_TARGET}x the strongest party at 4096^3", (MATMUL, "f32"),
        target_cases(mm, square_4096, MATMUL_SQUARE_TARGET))
    add(f"{MATMUL} f32: >= 1.0x the strongest party on the odd shapes (a dimension not a multiple of "
        f"{ODD_MULTIPLE})", (MATMUL, "f32"), target_cases(mm, odd, 1.0))
    for key in EXPECTED:
        add(f"{key[0]} {key[1]}: peak device memory not above the strongest baseline's", key,
            target_memory(chosen.get(key)))
    for key in EXPECTED:
        add(f"{key[0]} {key[1]}: correct on every public and hidden case", key, target_correct(chosen.get(key)))
    return rows


def render_targets(docs, any_device):
    rows = targets(docs, any_device)
    counts = {s: sum(1 for r in rows if r[1] == s) for s in (MET, MISSED, NOT_MEASURED)}
    scope = "the latest document per problem and dtype, of any machine (--any-device)" if any_device else \
        "the latest document per problem and dtype from an NVIDIA H100 or H200 (cuda)"
    out = ["## Targets", "",
           f"Read from {scope}. {counts[MET]} met, {counts[MISSED]} missed, {counts[NOT_MEASURED]} not measured. "
           "A speed target is met only where every party ran (the reference, every torch party of the device, the "
           "problem's own baselines); a speedup is the median of the paired per-round ratio against the case's "
           "strongest party.", "",
           "| target | status | figures | what the document shows | document |", "|---|---|---|---|---|"]
    for name, status, figs, shows, where in rows:
        st = f"**{status}**" if status == MISSED else status
        out.append(f"| {name} | {st} | {figs or '-'} | {shows or '-'} | {md(where)} |")
    out.append("")
    return out


# ---------------------------------------------------------------- loop runs


def read_loop(workdir):
    """The trajectory of a loop workdir from its journal (docs/proposer.md): per iteration the
    request, the judgements and the best after it; the families and the accepted improvements."""
    wd = Path(workdir)
    events = []
    with open(wd / "journal.jsonl") as f:
        for line in f:
            try:
                events.append(json.loads(line))
            except ValueError:
                break  # a torn last line, as the loop itself cuts it off on resume
    run = dict(workdir=str(wd), config={}, iterations={}, families=[], accepted=[], commits={}, stop=None)
    for e in events:
        ev = e.get("event")
        if ev == "started":
            run["config"] = e.get("config") or {}
        elif ev == "iteration":
            run["iterations"].setdefault(e.get("iteration"), {})["request"] = e.get("request") or {}
        elif ev == "judged":
            it = int(str(e.get("id", "i0-")).split("-")[0][1:] or 0)
            rec = run["iterations"].setdefault(it, {})
            s = e.get("summary") or {}
            rec.setdefault("judged", []).append(s)
        elif ev == "beam":
            rec = run["iterations"].setdefault(e.get("iteration"), {})
            rec["best"], rec["improved"] = e.get("best"), e.get("improved", False)
            run["families"] = e.get("families") or run["families"]
            if isinstance(e.get("accept"), dict):
                run["accepted"].append(e["accept"])
        elif ev == "committed":
            run["commits"][e.get("id")] = e.get("commit")
        elif ev == "stopped":
            run["stop"] = e.get("reason")
    run["key"] = loop_key(run)
    return run


def fmt_scored(b):
    if not isinstance(b, dict) or not isinstance(b.get("median"), (int, float)):
        return "-"
    if b.get("estimate_only"):
        return f"{b['median']:.3f}x (estimate, no CI)"
    return bt.fmt_speedup({"median": b["median"], "ci95": b.get("ci95")}) + "x"


def render_loop(run):
    c = run["config"]
    out = [f"#### Loop run {c.get('id', '?')} (`{run['workdir']}`)", "",
           f"Proposer `{md(c.get('proposer', '?'))}`, {c.get('device')}, beam {c.get('beam')}, started "
           f"{c.get('created_at', '?')}, stopped: {run['stop'] or 'not recorded (running, or killed)'}.", "",
           "The best's time is the geometric mean over the bench cases of its median; its speedup is against each "
           "case's strongest party, with the CI of its judgement.", "",
           "| iteration | request | judged (rejected) | families judged | best after it: time us, speedup | "
           "best's family | improvement beyond the CI |", "|---|---|---|---|---|---|---|"]
    for i in sorted(k for k in run["iterations"] if isinstance(k, int)):
        rec = run["iterations"][i]
        judged = rec.get("judged", [])
        rej = sum(1 for s in judged if not str(s.get("status", "")).startswith("ok_"))
        fams = sorted({s.get("family") or "unknown" for s in judged})
        best = rec.get("best")
        if "best" not in rec:
            best_txt, fam, imp = "(unfinished)", "-", "-"
        else:
            best_txt = f"{bt.fmt_us((best or {}).get('time_s'))}, {fmt_scored(best)}" if best else "none correct"
            fam, imp = (best or {}).get("family", "-"), "yes" if rec.get("improved") else "no"
        out.append(f"| {i} | {md((rec.get('request') or {}).get('kind', '?'))} | {len(judged)} ({rej}) | "
                   f"{md(', '.join(fams), 120) or '-'} | {best_txt} | {md(fam)} | {imp} |")
    out += ["", "| family | attempts | correct | rejected | best | state |", "|---|---|---|---|---|---|"]
    for f in run["families"]:
        state = "in the beam" if f.get("in_beam") else ("retired: " + md(f.get("retired_reason", ""), 160)
                                                        if f.get("retired") else "active")
        b = f.get("best") or {}
        out.append(f"| {md(f.get('name'))} | {f.get('attempts')} | {f.get('correct')} | {f.get('rejected')} | "
                   f"{b.get('id', '-')} {fmt_scored(b) if b else ''} | {state} |")
    out += ["", "Accepted improvements:" if run["accepted"] else "Accepted improvements: none.", ""]
    for a in run["accepted"]:
        commit = run["commits"].get(a.get("id"))
        out.append(f"- iteration {a.get('iteration')}: {a.get('id')} ({md(a.get('family'))}) "
                   f"{bt.fmt_us(a.get('time_s'))} us, {fmt_scored(a)}"
                   f"{', commit ' + commit[:12] if commit else ''}")
    out.append("")
    return out


def loop_key(run):
    """(problem, dtype) of a loop run; a run started without --dtype judged the problem's default,
    which its result documents name."""
    c = run["config"]
    dtype = c.get("dtype")
    if not dtype:
        for path in sorted((Path(run["workdir"]) / "results").glob("*.json")):
            d, _ = bt.load_document(path)
            if isinstance(d, dict) and (d.get("problem") or {}).get("dtype"):
                dtype = d["problem"]["dtype"]
                break
    return c.get("problem_name") or c.get("problem"), dtype


# ---------------------------------------------------------------- the page


def render(docs, skipped, loops, any_device, argv):
    keys = sorted({(d.problem, d.dtype) for d in docs} | {r["key"] for r in loops},
                  key=lambda k: (k[0] or "", k[1] or ""))
    out = ["# Suite table", "",
           f"Generated by `bench/suite-table.py {' '.join(argv) if len(argv) <= 8 else '...'}` from {len(docs)} "
           f"result document(s) and "
           f"{len(loops)} loop run(s).", ""]
    out += render_targets(docs, any_device)
    for key in keys:
        out += [f"## {key[0]} {key[1] or '(dtype not recorded)'}", ""]
        section = sorted((d for d in docs if (d.problem, d.dtype) == key), key=lambda d: d.date)
        if not section:
            out += ["No result document.", ""]
        for d in section:
            out += render_doc(d)
        runs = [r for r in loops if r["key"] == key]
        out += ["### Loop", ""]
        if not runs:
            out += ["No loop run recorded.", ""]
        for r in runs:
            out += render_loop(r)
    if skipped:
        out += ["## Skipped inputs", ""] + [f"- `{p}`: {md(why)}" for p, why in skipped] + [""]
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", help="result documents (kjudge eval --json), or directories of them")
    ap.add_argument("--loop", action="append", default=[], metavar="WORKDIR", help="a kjudge loop workdir")
    ap.add_argument("--any-device", action="store_true",
                    help="judge the targets from documents of any machine, not only NVIDIA H100/H200")
    ap.add_argument("-o", "--out", help="write the Markdown here instead of standard output")
    a = ap.parse_args(argv)
    docs, skipped = read_documents(a.inputs)
    loops = []
    for w in a.loop:
        try:
            loops.append(read_loop(w))
        except OSError as e:
            skipped.append((w, f"not a loop workdir: {e}"))
    text = render(docs, skipped, loops, a.any_device, argv)
    if a.out:
        Path(a.out).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
