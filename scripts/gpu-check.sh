#!/usr/bin/env bash
# The GPU check (DESIGN.md §6, issue "The CUDA backend on an H200"): on a machine with an NVIDIA
# GPU, from the repository root, builds kjudge with the CUDA backend and runs, stage by stage:
#   build   cmake/ninja with the vendored dependencies (.deps, from scripts/vendor-deps.sh)
#   tests   the GPU tests (tests/gpu: generator bit identity, guards, poison, timer, traces, faults;
#           KJ_GPU_TEST_FILTER: a gtest filter)
#   bench   the timer floor (empty kernel, cold), the stability of a >= 100 us kernel's median
#           across two runs, the SM clock per sample, tracing cost, the doctor's ceilings and an
#           independent cudaMemcpy bandwidth to check the copy ceiling against
#   oracle  the host oracle's envelope and comparison passes over a 1.6e9-element output
#           (kjudge-oracle-bench: what a recheck of KernelBench's largest outputs costs the host)
#   faults  candidates that fault the GPU (illegal address, hang, out-of-bounds write, input
#           modification, in-call synchronisation and allocation), each followed by an honest
#           candidate that must pass on the same GPU
#   aa      A/A: every suite problem's CUDA reference judged as a candidate against itself
#   demo    the shipped CUDA examples (honest and cheating) with their verdicts (KJ_DEMO_FLAGS,
#           default "--budget 2"; "--no-timing" for correctness verdicts only)
#   ttv     time to verdict from a cold build cache (nvcc compiles included)
#   redteam both corpora (tests/redteam, tests/honest) on the GPU
#   torch   each suite problem's fast example against the reference, the vendor library, torch
#           eager and every torch.compile mode in one run; table in torch-table.md
#   loop    the autotune loop on bf16 softmax from the naive CUDA templates, then its best
#           candidate against torch eager and torch.compile
#   cost    bench/cost-of-checks.sh on cuda (all rules against --rechecks 0)
#   batch   `kjudge batch` (docs/batch.md) against a loop of `kjudge eval` on the suite's fast CUDA
#           examples (per-evaluation overhead), then a KernelBench level-1 batch of A/A candidates
#           (each sampled problem's Model as its ModelNew; KJ_BATCH_KB=N problems, default 8):
#           time per candidate, where it goes, evaluations per hour (bench/batch-figures.py);
#           not in the default stages
#   kb      KernelBench level 1 and 2 (a copy outside the project's history, in .kb/ or
#           $KJ_KB_DIR: scripts/fetch-kernelbench.sh): imported, then `kjudge validate --all`
#           over each level on cuda (KJ_KB_SAMPLE files per level, evenly spaced; 0: all;
#           KJ_KB_PART=I/N: one part of each level, for levels larger than one call;
#           KJ_KB_FILES="21_ 41_": the files with these name prefixes; KJ_KB_NEXT=N: the next N
#           that no committed log under bench/results/h200 (loose or in its archive/) has
#           judged; KJ_KB_REUSE=1: the problems the last call imported (a call within the idle
#           window) that no committed log has judged, without importing again (with
#           KJ_KB_NEXT=N too: topped up to N with the next files not yet judged anywhere); every
#           request to a worker is traced in kb-requests-LEVEL.txt)
#   qr      batched_qr's timed run (issue 27): KJ_QR_CANDIDATE (default examples/batched_qr/blocked.cu)
#           against the reference, cuBLAS, cuSOLVER and torch.geqrf (torch:eager; the compile modes
#           add nothing to a library call), budget KJ_QR_BUDGET (default 2); every request to a
#           worker traced (qr-requests.txt: where the time goes); not in the default stages
#   e2e     kjudge e2e: examples/e2e/transformer_block.py at KJ_E2E_SIZE=large (hidden 4096, seq
#           KJ_E2E_SEQ, default 2048; bf16) with the suite's fast CUDA kernels for rmsnorm,
#           layernorm, softmax and gelu_bias_residual replaced one by one (KJ_E2E_REPLACE:
#           TARGET=CANDIDATE entries; KJ_E2E_COMPILE: comma-separated torch.compile modes, default
#           none: each mode adds two model evaluations and a compile per party, so one 600 s
#           call then fits about two targets); results e2e-*.json and e2e-table.txt (not in the
#           default list)
# Usage: scripts/gpu-check.sh [STAGE...]   (default: all stages, in this order)
# Results go to $OUT (the device tool's folder) or ./gpu-check-out: summary.txt, results.json,
# bench-1.json, bench-2.json, gpu-tests.json, logs.tar.gz; a short table is printed last. Over 8
# files, all but summary.txt, env.txt, results.json and logs.tar.gz go into more.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-check-out}
BUILD=${KJ_GPU_BUILD:-$ROOT/build-gpu}
LOGS=$BUILD/gpu-check-logs
# A call made within the device tool's idle window finds the last call's build-gpu, logs
# included: they move to gpu-check-logs-earlier/ so that this call's logs.tar.gz holds this
# call's work only (otherwise every later call ships every earlier call's request trace and
# results again); KJ_KB_REUSE still reads the earlier results there. KJ_GPU_APPEND=1 (a second
# run in the same call) keeps them.
if [ -z "${KJ_GPU_APPEND:-}" ] && [ -d "$LOGS" ] && [ -n "$(ls -A "$LOGS" 2>/dev/null)" ]; then
  mkdir -p "$BUILD/gpu-check-logs-earlier"
  mv "$LOGS" "$BUILD/gpu-check-logs-earlier/$(date -u +%Y%m%dT%H%M%S)"
fi
mkdir -p "$OUT" "$LOGS"
export KJUDGE_CACHE=$BUILD/kjudge-cache
export KJUDGE_DB=$LOGS/kjudge.db
KJ=$BUILD/bin/kjudge
SUMMARY=$OUT/summary.txt  # written as it goes: a run cut short still leaves it
stages=("$@")
# Stages that loop stop starting new evaluations after this many seconds (the device tool's
# call limit is 600 s; the logs are packed at the end).
DEADLINE=${KJ_GPU_DEADLINE:-530}
[ ${#stages[@]} -eq 0 ] && stages=(build tests bench oracle faults aa demo ttv redteam torch loop kb)
problems=(gelu_bias_residual layernorm rmsnorm softmax matmul_bias_relu batched_qr)

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

# One evaluation with a JSON result; prints "status rule time_to_verdict".
judge() {  # judge NAME PROBLEM CANDIDATE [flags...]
  local name=$1 problem=$2 cand=$3; shift 3
  local json=$LOGS/$name.json
  "$KJ" eval "$problem" "$cand" --device cuda --no-store -q --json "$json" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  if [ -s "$json" ]; then
    jq_py "$json" 'v=d["verdict"]; print(v["status"], v.get("rule") or "-", round(d.get("time_to_verdict_s",0),1))'
  else
    echo "no-result(rc=$rc) - -"
  fi
}

# KJ_GPU_APPEND=1: a second run in the same call (another setting, same build) adds to the summary.
[ -z "${KJ_GPU_APPEND:-}" ] && : >"$SUMMARY"
{
  echo "== gpu-check $(date -u +%FT%TZ) stages: ${stages[*]}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.limit,persistence_mode --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
} | tee -a "$SUMMARY" >"$OUT/env.txt"

if want build; then
  t0=$(date +%s)
  # kjudge-worker-py (torch parties on the judge's device buffers) embeds the python3 that holds
  # torch (/opt/torch/.venv/bin/python3 on the H200 image); without Python's embedding files the
  # build goes on without it and says so.
  PY=${KJUDGE_PYTHON:-$(command -v python3)}
  # Only what the chosen stages run (a call of `build kb` spends its device time on validations).
  # Without PostgreSQL (KJUDGE_POSTGRES=OFF): libpq's own libraries (Kerberos, LDAP) are not in
  # the GPU machine's image, and no stage uses a PostgreSQL store.
  targets=(kjudge kjudge-worker kjudge-worker-cuda)
  want tests && targets+=(kjudge_gpu_tests)
  want bench && targets+=(kjudge-gpu-bench kjudge-memcpy-check)
  want oracle && targets+=(kjudge-oracle-bench)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJUDGE_USE_DEPS=ON -DKJUDGE_CUDA=ON \
        -DKJUDGE_GPU_TESTS=ON -DKJUDGE_PYTHON_WORKER=ON -DKJUDGE_POSTGRES=OFF -DPython3_EXECUTABLE="$PY" >"$LOGS/configure.log" 2>&1 &&
    ninja -C "$BUILD" "${targets[@]}" >"$LOGS/build.log" 2>&1
  rc=$?
  py_worker="kjudge-worker-py: $( [ -x "$BUILD/bin/kjudge-worker-py" ] && echo "built with $PY" || echo "not built ($(grep -m1 -i 'embedding' "$LOGS/configure.log"))")"
  note "build: rc=$rc in $(( $(date +%s) - t0 )) s; $py_worker"
  if [ $rc -ne 0 ]; then tail -40 "$LOGS/configure.log" "$LOGS/build.log"; stages=(); fi
  # The device ceilings, cached for every evaluation below (fraction of the ceiling, faster_than_light).
  if [ $rc -eq 0 ]; then
    "$KJ" doctor --device cuda >"$LOGS/doctor.log" 2>&1
    note "kjudge doctor --device cuda: rc=$? $(grep -iE 'copy|fp32|tf32|bf16' "$LOGS/doctor.log" | tr '\n' ' ')"
  fi
fi

if want tests; then
  # KJ_GPU_TEST_FILTER: a gtest filter, for a call that needs a few tests only (say which in its notes).
  "$BUILD/bin/kjudge_gpu_tests" --gtest_filter="${KJ_GPU_TEST_FILTER:-*}" --gtest_output=json:"$LOGS/gpu-tests.json" >"$LOGS/gpu-tests.log" 2>&1
  rc=$?
  cp "$LOGS/gpu-tests.json" "$OUT/gpu-tests.json" 2>/dev/null
  note "gpu tests${KJ_GPU_TEST_FILTER:+ (filter $KJ_GPU_TEST_FILTER)}: rc=$rc $(grep -E '^\[  (PASSED|FAILED)  \]' "$LOGS/gpu-tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|Expected|Which is|actual' "$LOGS/gpu-tests.log" | head -30 | tee -a "$SUMMARY"
fi

if want bench; then
  "$BUILD/bin/kjudge-gpu-bench" --doctor --out "$LOGS/bench-1.json" >"$LOGS/bench-1.log" 2>&1
  "$BUILD/bin/kjudge-gpu-bench" --out "$LOGS/bench-2.json" >"$LOGS/bench-2.log" 2>&1
  "$BUILD/bin/kjudge-memcpy-check" >"$LOGS/memcpy.json" 2>"$LOGS/memcpy.log"
  cp "$LOGS/bench-1.json" "$LOGS/bench-2.json" "$OUT/" 2>/dev/null
  python3 - "$LOGS/bench-1.json" "$LOGS/bench-2.json" "$LOGS/memcpy.json" <<'PY' | tee -a "$SUMMARY"
import json, sys
try:
    a, b, m = (json.load(open(p)) for p in sys.argv[1:4])
except Exception as e:
    print("bench: missing result:", e); sys.exit(0)
e = a["empty_cold"]
print(f"timer floor: empty kernel cold median {e['median_us']:.2f} us (p10 {e['p10_us']:.2f}, p90 {e['p90_us']:.2f}; "
      f"target <= 3 us: {'PASS' if e['median_us'] <= 3 else 'FAIL'}); warm {a['empty_warm']['median_us']:.2f} us; "
      f"naive events {a['empty_naive_events']['median_us']:.2f} us; graph {a['empty_graph_per_launch']['median_us']:.2f} us/launch; "
      f"traced {a['empty_cold_traced']['median_us']:.2f} us")
for k in ("copy_256MiB_cold", "spin_300k_cycles"):
    x, y = a[k]["median_us"], b[k]["median_us"]
    d = abs(x - y) / min(x, y) * 100
    print(f"stability {k}: run 1 {x:.2f} us, run 2 {y:.2f} us, diff {d:.2f}% (target <= 1%: {'PASS' if d <= 1 else 'FAIL'}); "
          f"SM clock median {a[k].get('sm_mhz',{}).get('median',0):.0f} MHz, samples under 0.9x: {a[k].get('sm_mhz',{}).get('under_0.9_median','?')}")
doc = a.get("doctor", {})
c = doc.get("copy_gbps", 0)
d = abs(c - m["median_gbps"]) / m["median_gbps"] * 100 if c else 999
print(f"copy ceiling: kjudge doctor {c:.0f} GB/s ({doc.get('details',{}).get('copy_gbps_source','?')}), "
      f"independent cudaMemcpy {m['median_gbps']:.0f} GB/s, diff {d:.2f}% (target <= 5%: {'PASS' if d <= 5 else 'FAIL'})")
print(f"matmul ceilings: fp32 {doc.get('fp32_gflops',0)/1e3:.1f} TFLOP/s, tf32 {doc.get('tf32_gflops',0)/1e3:.1f}, "
      f"bf16 {doc.get('bf16_gflops',0)/1e3:.1f}")
PY
fi

if want faults; then
  C=tests/gpu/candidates
  honest=examples/softmax/fast.cu
  while read -r name problem cand expect flags; do
    r=$(judge "fault-$name" "$problem" "$cand" $flags)
    st=${r%% *}
    ok=FAIL; [[ " ${expect//|/ } " == *" $st "* ]] && ok=PASS
    if [[ $name == illegal_address || $name == hang ]]; then
      # After a fault that can hurt the GPU, an honest candidate must pass on it.
      after=$(judge "after-$name" softmax "$honest" --no-timing)
      ok2=FAIL; [[ ${after%% *} == ok_* ]] && ok2=PASS
      note "fault $name: $r (expected ${expect//|/ or }: $ok); next honest candidate: ${after%% *} ($ok2)"
    else
      note "fault $name: $r (expected ${expect//|/ or }: $ok)"
    fi
  done <<EOF
illegal_address softmax $C/illegal_address_softmax.cu runtime_error|crash --no-timing
hang softmax $C/hang_softmax.cu timeout --no-timing --call-timeout 5
oob_write softmax $C/oob_write_softmax.cu hack --no-timing
modifies_input softmax $C/modifies_input_softmax.cu hack --no-timing
sync_alloc softmax $C/sync_alloc_softmax.cu ok_not_faster|ok_faster --budget 2
second_stream rmsnorm examples/rmsnorm/cheat_second_stream.cu hack|wrong_result --budget 2
uninit_read_plain softmax tests/redteam/cuda/uninit_read_softmax.cu ok_not_faster|ok_faster --no-timing
uninit_read_initcheck softmax tests/redteam/cuda/uninit_read_softmax.cu wrong_result --no-timing --sanitize initcheck
honest_memcheck softmax examples/softmax/fast.cu ok_not_faster|ok_faster --no-timing --sanitize memcheck
honest_racecheck softmax examples/softmax/fast.cu ok_not_faster|ok_faster --no-timing --sanitize racecheck
EOF
fi

if want aa; then
  for p in ${KJ_AA_PROBLEMS:-${problems[*]}}; do
    if [ "$SECONDS" -gt "$DEADLINE" ]; then note "aa: stopped at the time limit before $p"; break; fi
    judge "aa-$p" "$p" "problems/$p/reference.cu" --budget "${KJ_AA_BUDGET:-4}" >/dev/null
    python3 - "$LOGS/aa-$p.json" "$p" <<'PY' 2>&1 | tee -a "$SUMMARY"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"A/A {sys.argv[2]}: no result ({e})"); sys.exit(0)
s = d.get("speedup") or {}
r = (s.get("per_baseline") or {}).get("reference") or {}
med, ci = r.get("median"), r.get("ci95") or [None, None]
ok = med is not None and 0.99 <= med <= 1.01 and ci[0] <= 1 <= ci[1]
t = d.get("timing") or {}
cases = "; ".join(f"{c['id']} {c['candidate']['median_s']*1e6:.1f} us" for c in t.get("cases", []))
msg = f"A/A {d['problem']['name']}: verdict {d['verdict']['status']}, ratio {med}, CI {ci}, rounds {t.get('rounds')}, " \
      f"ttv {d.get('time_to_verdict_s', 0):.1f} s [{cases}]: {'PASS' if ok else 'FAIL'}"
if not ok:
    msg += "  reasons: " + "; ".join(d["verdict"].get("reasons", [])[:2])
print(msg)
PY
  done
fi

if want demo; then
  for f in examples/*/*.cu; do
    if [ "$SECONDS" -gt "$DEADLINE" ]; then note "demo: stopped at the time limit before $f"; break; fi
    p=$(basename "$(dirname "$f")")
    n=$(basename "$f" .cu)
    r=$(judge "demo-$p-$n" "$p" "$f" ${KJ_DEMO_FLAGS:---budget 2})
    extra=$(jq_py "$LOGS/demo-$p-$n.json" 's=d.get("speedup") or {}; print("speedup %.3f [%.3f, %.3f] vs %s" % (s["median"], s["ci95"][0], s["ci95"][1], s.get("baseline")) if s else "")' 2>/dev/null)
    note "demo $p/$n: $r $extra"
  done
fi

if want ttv; then
  # Time to verdict of the CUDA judge (reference and vendor baselines; the torch baselines'
  # compile times are reported by the torch stage), from a cold build cache, nvcc included.
  for p in ${KJ_TTV_PROBLEMS:-softmax layernorm rmsnorm}; do
    if [ "$SECONDS" -gt "$DEADLINE" ]; then note "ttv: stopped at the time limit before $p"; break; fi
    cache=$(mktemp -d)
    # Cold for builds, but with the doctor's ceilings (a measurement of the device, not a build).
    cp "$KJUDGE_CACHE"/ceilings-*.json "$cache/" 2>/dev/null
    KJUDGE_CACHE=$cache judge "ttv-$p" "$p" "examples/$p/fast.cu" --torch none >/dev/null
    note "time to verdict (cold cache, nvcc included, --torch none) $p/fast.cu: $(jq_py "$LOGS/ttv-$p.json" 'print(round(d["time_to_verdict_s"],1), "s, candidate build", round((d.get("build") or {}).get("seconds",0),1), "s, timing", round((d.get("timing") or {}).get("seconds",0),1), "s,", d["verdict"]["status"], (d.get("speedup") or {}).get("median"), "; phases (s):", " ".join(f"{k} {v:.1f}" for k, v in (d.get("phases_s") or {}).items()), "; in timing:", (d.get("timing") or {}).get("rechecks"), "sample requests", round((d.get("timing") or {}).get("sample_requests_s", 0), 1), "s")' 2>&1)"
    rm -rf "$cache"
  done
fi

if want redteam; then
  # Both corpora on the GPU (tests/redteam, tests/honest: the cuda entries and the Python forms).
  "$KJ" redteam --device cuda --json "$LOGS/redteam-cuda.json" ${KJ_REDTEAM_FLAGS:-} >"$LOGS/redteam-cuda.log" 2>&1
  note "redteam (cuda): rc=$? $(grep -E '^totals' "$LOGS/redteam-cuda.log")"
  grep -E 'missed|false positive' "$LOGS/redteam-cuda.log" | head -20 | tee -a "$SUMMARY"
  cp "$LOGS/redteam-cuda.log" "$OUT/redteam-cuda.txt"
fi

if want torch; then
  # Every baseline side by side in one run per problem: the CUDA reference, the vendor library
  # where the problem has one, torch eager and each torch.compile mode (TF32 on), with the
  # fraction of the speed of light; written to $OUT/torch-table.md.
  # Entries: PROBLEM:DTYPE[:CANDIDATE] (default candidate examples/PROBLEM/fast.cu).
  for pd in ${KJ_TORCH_PROBLEMS:-softmax:bf16 layernorm:f32 rmsnorm:bf16 gelu_bias_residual:f32 matmul_bias_relu:f32 batched_qr:f32:examples/batched_qr/naive.cu}; do
    IFS=: read -r p dt cand <<<"$pd"
    # Worker logs and scratch kept (KJUDGE_KEEP_SCRATCH): a baseline that dies leaves its log.
    export KJUDGE_KEEP_SCRATCH=1
    cand=${cand:-examples/$p/fast.cu}
    if [ "$SECONDS" -gt "$DEADLINE" ]; then note "torch: stopped at the time limit before $pd"; break; fi
    r=$(judge "torch-$p-$dt" "$p" "$cand" --dtype "$dt" --budget "${KJ_TORCH_BUDGET:-3}" \
          --torch "${KJ_TORCH_KINDS:-torch:eager,torch:compile:default,torch:compile:max-autotune-no-cudagraphs,torch:compile:max-autotune}")
    note "torch table $p $dt ($cand): $r"
    unset KJUDGE_KEEP_SCRATCH
    if [[ $r != ok_* ]]; then
      jq_py "$LOGS/torch-$p-$dt.json" 'print("  reasons:", " | ".join(d["verdict"].get("reasons", []))[:1500])' 2>&1 | tee -a "$SUMMARY"
      for log in "$KJUDGE_CACHE"/scratch/*/*/worker.log; do
        [ -s "$log" ] && { echo "  --- $log (last 15 lines)"; tail -15 "$log"; } | tee -a "$SUMMARY"
      done
    fi
    (cd "$KJUDGE_CACHE" && find scratch -name '*.log' | tar -czf "$OUT/torch-logs-$p-$dt.tar.gz" -T - 2>/dev/null)
    rm -rf "$KJUDGE_CACHE/scratch"
    # Rewritten after every evaluation: a call cut off at its time limit keeps what was measured.
    python3 scripts/baseline-table.py "$LOGS"/torch-*.json >"$OUT/torch-table.md" 2>&1
    cp "$LOGS/torch-$p-$dt.json" "$OUT/" 2>/dev/null
  done
  cat "$OUT/torch-table.md" | tee -a "$SUMMARY"
fi

if want qr; then
  cand=${KJ_QR_CANDIDATE:-examples/batched_qr/blocked.cu}
  t0=$SECONDS
  r=$(KJUDGE_TRACE_REQUESTS=$LOGS/qr-requests.txt judge qr-timed batched_qr "$cand" --budget "${KJ_QR_BUDGET:-2}" \
        --torch torch:eager)
  note "qr timed ($cand): $r in $((SECONDS - t0)) s"
  cp "$LOGS/qr-timed.json" "$LOGS/qr-timed.log" "$LOGS/qr-requests.txt" "$OUT/" 2>/dev/null
  [ -s "$LOGS/qr-timed.json" ] && python3 scripts/baseline-table.py "$LOGS/qr-timed.json" | tee -a "$SUMMARY" >"$OUT/qr-table.md"
fi

if want e2e; then
  # The kernel-level judgement (timed, --budget KJ_E2E_BUDGET) then the model-level correctness
  # against the model's float64 run, on the GPU, per replaced target (docs/e2e.md).
  export KJ_E2E_SIZE=large KJ_E2E_DTYPE=bf16 KJ_E2E_SEQ=${KJ_E2E_SEQ:-2048}
  : >"$OUT/e2e-table.txt"
  for entry in ${KJ_E2E_REPLACE:-RMSNorm=examples/rmsnorm/fast.cu LayerNorm=examples/layernorm/fast.cu torch.softmax=examples/softmax/fast.cu GeluBiasResidual=examples/gelu_bias_residual/fast.cu}; do
    if [ "$SECONDS" -gt "$DEADLINE" ]; then note "e2e: stopped at the time limit before $entry"; break; fi
    name=e2e-${entry%%=*}
    t0=$SECONDS
    "$KJ" e2e examples/e2e/transformer_block.py --replace "$entry" --device cuda --dtype bf16 -q \
      --budget "${KJ_E2E_BUDGET:-2}" --hidden "${KJ_E2E_HIDDEN:-2}" --torch-compile "${KJ_E2E_COMPILE:-none}" \
      --json "$LOGS/$name.json" >"$LOGS/$name.log" 2>&1
    rc=$?
    note "e2e $entry: exit $rc in $((SECONDS - t0)) s"
    cat "$LOGS/$name.log" >>"$OUT/e2e-table.txt"
    tail -12 "$LOGS/$name.log" | tee -a "$SUMMARY"
    cp "$LOGS/$name.json" "$OUT/" 2>/dev/null
  done
  unset KJ_E2E_SIZE KJ_E2E_DTYPE KJ_E2E_SEQ
fi

if want loop; then
  # The search loop on bf16 softmax from the naive template (issue "The search loop"), then the
  # best candidate judged against torch eager and torch.compile.
  W=$LOGS/loop-softmax
  rm -rf "$W"
  timeout $(( DEADLINE - SECONDS > 60 ? DEADLINE - SECONDS - 60 : 10 )) \
    "$KJ" loop softmax --device cuda --dtype bf16 --workdir "$W" --torch-baselines none -q \
      --proposer autotune:examples/templates/softmax_cuda_rowwise.cu,examples/templates/softmax_cuda_online.cu \
      ${KJ_LOOP_FLAGS:---eval-budget 1 --min-rounds 5} >"$LOGS/loop.log" 2>&1
  note "loop: rc=$? $(tail -3 "$LOGS/loop.log" | tr '\n' ' ')"
  "$KJ" loop report "$W" >"$OUT/loop-report.txt" 2>&1
  # The loop's page (docs/reports.md) and its whole workdir (journal, results, proposals, the git
  # of accepted improvements), so that the page can be made again from what comes back.
  "$KJ" loop report "$W" --html "$OUT/loop-softmax-bf16.html" >>"$LOGS/loop.log" 2>&1
  tar -czf "$OUT/loop-workdir.tar.gz" -C "$(dirname "$W")" "$(basename "$W")" 2>/dev/null
  cp "$W"/*.svg "$OUT/" 2>/dev/null
  tail -30 "$OUT/loop-report.txt" | tee -a "$SUMMARY"
  best=$(python3 - "$W" <<'PY'
import glob, json, os, sys
w = sys.argv[1]
best = None
try:
    for line in open(os.path.join(w, "journal.jsonl")):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "beam" and e.get("best"):
            best = e["best"]["id"]
except OSError:
    pass
if best:
    files = glob.glob(os.path.join(w, "proposals", best + ".*"))
    print(files[0] if files else "")
PY
)
  if [ -n "$best" ] && [ -f "$best" ]; then
    r=$(judge "loop-best-vs-torch" softmax "$best" --dtype bf16 --budget 3 --torch torch:eager,torch:compile:default,torch:compile:max-autotune-no-cudagraphs)
    note "loop best ($best) against torch: $r"
  else
    note "loop: no best candidate found in $W"
  fi
fi

if want cost; then
  # The cost of the checks (issue "Anti-cheat"): all rules against --rechecks 0, build cache warm
  # (KJ_COST_PROBLEMS, KJ_COST_RUNS).
  PROBLEMS=${KJ_COST_PROBLEMS:-softmax layernorm} RUNS=${KJ_COST_RUNS:-1} \
    timeout $(( DEADLINE - SECONDS > 30 ? DEADLINE - SECONDS : 30 )) bash bench/cost-of-checks.sh cuda "$BUILD" \
    >"$OUT/cost-of-checks-cuda.md" 2>"$LOGS/cost.log"
  note "cost of checks (cuda): rc=$?"
  tee -a "$SUMMARY" <"$OUT/cost-of-checks-cuda.md"
fi

if want oracle; then
  # The host side of a recheck of KernelBench's largest outputs (1.6e9 f32 elements, 25.8 GB).
  "$BUILD/bin/kjudge-oracle-bench" --elements 1610612736 --rows 4096 --reps 3 >"$LOGS/oracle-bench.log" 2>&1
  note "oracle bench (host, rc=$?): $(tr '\n' ' ' <"$LOGS/oracle-bench.log")"
  # The full envelope of a widened check: the same-dtype run and three perturbed runs.
  "$BUILD/bin/kjudge-oracle-bench" --elements 402653184 --rows 4096 --reps 3 --runs 4 >"$LOGS/oracle-bench-runs4.log" 2>&1
  note "oracle bench, 4 runs (host, rc=$?): $(tr '\n' ' ' <"$LOGS/oracle-bench-runs4.log")"
fi

if want batch; then
  # Issue "Judging thousands of kernels": (1) the same candidates judged by a loop of `kjudge eval`
  # and by one `kjudge batch`: what a batch saves per evaluation; (2) a KernelBench level-1 batch.
  t0=$(date +%s)
  BR=$LOGS/batch
  rm -rf "$BR"
  mkdir -p "$BR/suite-run"
  flags=(--device cuda --torch none --budget "${KJ_BATCH_BUDGET:-2}")
  for p in softmax rmsnorm layernorm gelu_bias_residual; do
    mkdir -p "$BR/suite-run/$p"
    cp "examples/$p/fast.cu" "$BR/suite-run/$p/fast.cu"
  done
  : >"$BR/eval-loop.txt"
  for p in softmax rmsnorm layernorm gelu_bias_residual; do
    s0=$(date +%s.%N)
    "$KJ" eval "$p" "$BR/suite-run/$p/fast.cu" "${flags[@]}" --no-store -q --json "$BR/eval-$p.json" >"$BR/eval-$p.log" 2>&1
    rc=$?
    echo "$p rc=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $s0, 3))")" >>"$BR/eval-loop.txt"
  done
  s0=$(date +%s.%N)
  "$KJ" batch "$BR/suite-run" --state "$BR/suite-state" "${flags[@]}" --no-store -q >"$BR/suite-batch.log" 2>&1
  rc=$?
  echo "batch rc=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $s0, 3))")" >>"$BR/eval-loop.txt"
  python3 bench/batch-figures.py overhead "$BR" | tee "$OUT/batch-overhead.txt" | tee -a "$SUMMARY"
  # (2) A/A candidates in KernelBench's layout: the problem file with `ModelNew = Model` appended,
  # judged with the default baselines (torch eager and the torch.compile modes) as a KernelBench
  # candidate would be.
  KB=${KJ_KB_DIR:-$ROOT/.kb/KernelBench}
  export KJUDGE_IMPORTED=$BUILD/kb-problems
  n=${KJ_BATCH_KB:-8}
  src=$BR/kb-files
  mkdir -p "$src" "$BR/kb-run"
  mapfile -t all < <(ls "$KB/level1" 2>/dev/null | grep '\.py$' | sort -V)
  for ((i = 0; i < n && i < ${#all[@]}; i++)); do cp "$KB/level1/${all[$(( i * ${#all[@]} / n ))]}" "$src/"; done
  if [ "$(ls "$src" | wc -l)" -eq 0 ]; then
    note "batch: no KernelBench level 1 in $KB (scripts/fetch-kernelbench.sh)"
  else
    rm -rf "$KJUDGE_IMPORTED/kb/level1"
    "$KJ" import kernelbench "$src" --prefix kb/level1 --jobs 8 --timeout 120 >"$BR/kb-import.log" 2>&1
    note "batch: imported $(ls "$KJUDGE_IMPORTED/kb/level1" 2>/dev/null | wc -l) of $(ls "$src" | wc -l) level-1 files (rc=$?)"
    for f in "$src"/*.py; do
      id=$(basename "$f" | cut -d_ -f1)
      { cat "$f"; printf '\n\nModelNew = Model\n'; } >"$BR/kb-run/level_1_problem_${id}_sample_0_kernel.py"
    done
    left=$(( DEADLINE - SECONDS > 30 ? DEADLINE - SECONDS : 30 ))
    s0=$(date +%s.%N)
    timeout "$left" "$KJ" batch "$BR/kb-run" --state "$BR/kb-state" --problems "$KJUDGE_IMPORTED" --device cuda \
      --no-store -q >"$BR/kb-batch.log" 2>&1
    rc=$?
    echo "kb-batch rc=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $s0, 3))")" >>"$BR/eval-loop.txt"
    python3 bench/batch-figures.py kb "$BR/kb-state" "$BR/eval-loop.txt" | tee "$OUT/batch-kb-level1.txt" | tee -a "$SUMMARY"
    cp "$BR/kb-run/eval_results.fast_p.json" "$OUT/batch-kb-fast_p.json" 2>/dev/null
    cp "$BR/kb-run/eval_results.json" "$OUT/batch-kb-eval_results.json" 2>/dev/null ||
      cp "$BR/kb-state/eval_results.json" "$OUT/batch-kb-eval_results.json" 2>/dev/null
  fi
  note "batch: $(( $(date +%s) - t0 )) s"
fi

if want kb; then
  # KJ_KB_TAG: a suffix of this run's file names (an A/B of settings in one call, e.g.
  # KJ_KB_TAG=-detach-each with KJUDGE_CUPTI_DETACH=each and KJ_GPU_APPEND=1 in a second run).
  TAG=${KJ_KB_TAG:-}
  KB=${KJ_KB_DIR:-$ROOT/.kb/KernelBench}
  export KJUDGE_IMPORTED=$BUILD/kb-problems
  for lvl in ${KJ_KB_LEVELS:-level1 level2}; do
    if [ ! -d "$KB/$lvl" ]; then note "kb: no $KB/$lvl (scripts/fetch-kernelbench.sh)"; continue; fi
    t0=$(date +%s)
    src=$KB/$lvl
    sample=${KJ_KB_SAMPLE:-0}
    if [ "${KJ_KB_REUSE:-}" = 1 ] && [ -d "$KJUDGE_IMPORTED/kb/$lvl" ]; then
      # KJ_KB_REUSE=1: a call made within the device tool's idle window finds the last call's
      # imported problems (build-gpu survives): those that no committed log has judged are
      # validated without importing again (an import of 20 files took 82 s of a call).
      mapfile -t todo < <(python3 bench/kb-validation-summary.py bench/results/h200 --kb "$KB" --todo "$lvl")
      keep=" ${todo[*]%.py} "
      for d in "$KJUDGE_IMPORTED/kb/$lvl"/*/; do
        n=$(basename "$d")
        # Judged by an earlier call on this machine (its result document is still here) but not
        # yet in a committed log: skipped too (otherwise a second call judges them again).
        judged_here=$(ls "$LOGS/kb-results-$lvl$TAG/kb_${lvl}_$n.json" \
          "$BUILD"/gpu-check-logs-earlier/*/kb-results-"$lvl$TAG"/kb_"${lvl}_$n".json 2>/dev/null | head -1)
        [[ "$keep" == *" $n "* && -z "$judged_here" ]] || rm -rf "$d"
      done
      have=$(ls "$KJUDGE_IMPORTED/kb/$lvl" | wc -l)
      note "kb $lvl: KJ_KB_REUSE: the $have imported problems not yet judged: $(ls "$KJUDGE_IMPORTED/kb/$lvl" | sort -V | tr '\n' ' ')"
      # With KJ_KB_NEXT=N as well: fewer than N left to judge here, so the next files that no
      # committed log, no earlier call here and no imported problem covers are imported beside
      # them (otherwise a call that finds one problem left judges only that).
      if [ -z "${KJ_KB_NEXT:-}" ] || [ "$have" -ge "$KJ_KB_NEXT" ]; then continue; fi
      src=$BUILD/kb-next/$lvl
      rm -rf "$src"
      mkdir -p "$src"
      added=0
      for f in "${todo[@]}"; do
        [ "$added" -lt $(( KJ_KB_NEXT - have )) ] || break
        n=${f%.py}
        [ -d "$KJUDGE_IMPORTED/kb/$lvl/$n" ] && continue
        [ -n "$(ls "$LOGS/kb-results-$lvl$TAG/kb_${lvl}_$n.json" \
          "$BUILD"/gpu-check-logs-earlier/*/kb-results-"$lvl$TAG"/kb_"${lvl}_$n".json 2>/dev/null | head -1)" ] && continue
        cp "$KB/$lvl/$f" "$src/"
        added=$((added + 1))
      done
      if [ "$added" -eq 0 ]; then continue; fi
      note "kb $lvl: KJ_KB_NEXT: $added more imported beside them: $(ls "$src" | sort -V | tr '\n' ' ')"
    elif [ -n "${KJ_KB_FILES:-}" ]; then
      # KJ_KB_FILES="21_ 41_ ...": only the files whose names start with one of these prefixes
      # (a diagnosis of chosen problems).
      src=$BUILD/kb-files/$lvl
      rm -rf "$src" "$KJUDGE_IMPORTED/kb/$lvl"
      mkdir -p "$src"
      for pre in $KJ_KB_FILES; do cp "$KB/$lvl/$pre"*.py "$src/" 2>/dev/null; done
      note "kb $lvl: chosen files: $(ls "$src" | sort -V | tr '\n' ' ')"
    elif [ -n "${KJ_KB_NEXT:-}" ]; then
      # KJ_KB_NEXT=N: the next N files of the level that no committed validate log has judged
      # (bench/kb-validation-summary.py --todo), in KernelBench's order: each call goes on where the
      # last one stopped, and a problem cut by a call's deadline comes first in the next.
      src=$BUILD/kb-next/$lvl
      rm -rf "$src" "$KJUDGE_IMPORTED/kb/$lvl"
      mkdir -p "$src"
      mapfile -t todo < <(python3 bench/kb-validation-summary.py bench/results/h200 --kb "$KB" --todo "$lvl")
      for ((i = 0; i < KJ_KB_NEXT && i < ${#todo[@]}; i++)); do cp "$KB/$lvl/${todo[$i]}" "$src/"; done
      note "kb $lvl: the next $(ls "$src" | wc -l) of ${#todo[@]} not yet judged: $(ls "$src" | sort -V | tr '\n' ' ')"
      if [ "${#todo[@]}" -eq 0 ]; then note "kb $lvl: every problem has a committed validation"; continue; fi
    elif [ -n "${KJ_KB_PART:-}" ]; then
      # KJ_KB_PART=I/N: only the files whose index in KernelBench's numbering is I modulo N are
      # imported and validated (importing a whole level costs a call's time before any validation).
      part_i=${KJ_KB_PART%/*}; part_n=${KJ_KB_PART#*/}
      src=$BUILD/kb-part/$lvl
      rm -rf "$src" "$KJUDGE_IMPORTED/kb/$lvl"
      mkdir -p "$src"
      mapfile -t all < <(ls "$KB/$lvl" | grep '\.py$' | sort -V)
      for ((i = part_i; i < ${#all[@]}; i += part_n)); do cp "$KB/$lvl/${all[$i]}" "$src/"; done
      note "kb $lvl: part $KJ_KB_PART, $(ls "$src" | wc -l) of ${#all[@]} files: $(ls "$src" | sort -V | tr '\n' ' ')"
    elif [ "$sample" -gt 0 ]; then
      # KJ_KB_SAMPLE files, evenly spaced in KernelBench's numbering (the device time of one
      # session does not cover 200 validations), imported and validated under kb/LEVEL.
      src=$BUILD/kb-sample/$lvl
      rm -rf "$src" "$KJUDGE_IMPORTED/kb/$lvl"
      mkdir -p "$src"
      mapfile -t all < <(ls "$KB/$lvl" | grep '\.py$' | sort -V)
      for ((i = 0; i < sample && i < ${#all[@]}; i++)); do cp "$KB/$lvl/${all[$(( i * ${#all[@]} / sample ))]}" "$src/"; done
      note "kb $lvl: a sample of $(ls "$src" | wc -l) of ${#all[@]} files: $(ls "$src" | sort -V | tr '\n' ' ')"
    fi
    timeout $(( DEADLINE - SECONDS > 30 ? DEADLINE - SECONDS : 30 )) "$KJ" import kernelbench "$src" --prefix "kb/$lvl" --jobs "${KJ_KB_JOBS:-8}" --timeout 120 >"$LOGS/kb-import-$lvl$TAG.log" 2>&1
    note "kb import $lvl: rc=$? in $(( $(date +%s) - t0 )) s: $(tail -1 "$LOGS/kb-import-$lvl$TAG.log")"
    grep -E '^kjudge import:' "$LOGS/kb-import-$lvl$TAG.log" | cut -c1-300 | head -20 | tee -a "$SUMMARY"
  done
  for lvl in ${KJ_KB_LEVELS:-level1 level2}; do
    left=$(( DEADLINE - SECONDS ))
    if [ "$left" -lt 30 ]; then note "kb validate $lvl: not started, time limit"; continue; fi
    # With KJ_KB_PART only that part was imported (above); KJ_KB_VALIDATE_FLAGS adds eval flags
    # (e.g. "--hidden 2").
    # Every request to a worker and its wait, for finding where a problem's time goes.
    KJUDGE_TRACE_REQUESTS=$LOGS/kb-requests-$lvl$TAG.txt \
    timeout "$left" "$KJ" validate --all "kb/$lvl" --device cuda --budget "${KJ_KB_BUDGET:-1}" -q --results "$LOGS/kb-results-$lvl$TAG" \
        ${KJ_KB_VALIDATE_FLAGS:-} \
        >"$LOGS/kb-validate-$lvl$TAG.log" 2>&1
    rc=$?
    n_ok=$(grep -cE '^kb/\S+ +ok ' "$LOGS/kb-validate-$lvl$TAG.log")
    n_fail=$(grep -cE '^kb/\S+ +FAIL ' "$LOGS/kb-validate-$lvl$TAG.log")
    note "kb validate $lvl$TAG: rc=$rc; $(grep -E 'problem\(s\) found|^--sample|^--part|^ratio within' "$LOGS/kb-validate-$lvl$TAG.log" | tr '\n' ' ') [lines: $n_ok ok, $n_fail FAIL$( [ $rc -eq 124 ] && echo ', cut at the time limit')]"
    cp "$LOGS/kb-validate-$lvl$TAG.log" "$OUT/kb-validate-$lvl$TAG.txt"
    cp "$LOGS/kb-import-$lvl$TAG.log" "$OUT/kb-import-$lvl$TAG.txt" 2>/dev/null
  done
fi

python3 - "$LOGS" >"$OUT/results.json" <<'PY'
import glob, json, os, sys
out = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name = os.path.basename(p)[:-5]
    if name.startswith(("bench-", "gpu-tests")): continue
    try:
        d = json.load(open(p))
    except Exception:
        continue
    if "verdict" in d:
        d = {k: d.get(k) for k in ("problem", "candidate", "verdict", "speedup", "timing", "memory", "build", "env",
                                    "time_to_verdict_s", "ceilings")}
    out[name] = d
json.dump(out, sys.stdout, indent=1)
PY
tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . 2>/dev/null
# The device tool brings back at most 8 files from $OUT (/work/.library/device/README.md; session
# 12's first call lost its summary.txt to that limit: two runs had written 10). Over 8, every
# file but these four goes into more.tar.gz (merged with an earlier run's in the same call);
# scripts/collect-gpu-run.sh unpacks it. Nothing else may write into $OUT while this runs: the
# device tool returns stdout anyway.
keep=" summary.txt env.txt results.json logs.tar.gz more.tar.gz "
if [ "$(find "$OUT" -type f | wc -l)" -gt 8 ]; then
  mapfile -t extra < <(cd "$OUT" && find . -type f | sed 's|^\./||' | while read -r f; do
    case "$keep" in *" $f "*) ;; *) echo "$f" ;; esac
  done)
  packing=$(mktemp -d)
  [ -f "$OUT/more.tar.gz" ] && tar -xzf "$OUT/more.tar.gz" -C "$packing"
  (cd "$OUT" && cp --parents "${extra[@]}" "$packing/" && rm -f "${extra[@]}")
  tar -czf "$OUT/more.tar.gz" -C "$packing" .
  rm -rf "$packing"
  find "$OUT" -mindepth 1 -type d -empty -delete
  note "out: ${#extra[@]} file(s) packed into more.tar.gz (the device tool returns 8 files at most)"
fi
echo
echo "==== gpu-check summary ===="
grep -vE '^(==|name,|NVIDIA|Cuda|Build)' "$SUMMARY" | tail -60
