#!/usr/bin/env bash
# The project's style and structure checks (CI runs them after the tests: .ci/run):
#   1. clang-format: every C++/CUDA file under src/ and include/ is formatted (.clang-format);
#   2. layers: every include of src/ follows src/layers.txt (scripts/check-layers.py);
#   3. clang-tidy (.clang-tidy, warnings are errors) on the C++ files of src/ changed since
#      KJ_LINT_BASE (default: the merge base with origin/main where that differs from HEAD, else
#      HEAD's parent); KJ_LINT_BASE=all checks every file (minutes on 2 cores).
# Usage: scripts/lint.sh [BUILD_DIR]   (BUILD_DIR holds compile_commands.json; default build)
# Exit status: 0 when all pass, 1 otherwise; each failure is named on its own line.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
status=0

mapfile -t sources < <(git ls-files --cached --others --exclude-standard 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'src/*.cu' 'src/*.cuh' \
  'include/*.h' 'include/*.hpp' 'include/*.cuh')
if ! command -v clang-format >/dev/null; then
  echo "lint: clang-format is not installed (scripts/install-deps.sh installs it)"
  status=1
else
  unformatted=()
  for f in "${sources[@]}"; do
    [ -f "$f" ] || continue  # deleted in the working tree
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
  done
  if [ ${#unformatted[@]} -gt 0 ]; then
    printf 'lint: not formatted (clang-format -i FILE): %s\n' "${unformatted[@]}"
    status=1
  else
    echo "lint: clang-format: ${#sources[@]} files formatted"
  fi
fi

python3 scripts/check-layers.py || status=1

if ! command -v clang-tidy >/dev/null; then
  echo "lint: clang-tidy is not installed (scripts/install-deps.sh installs it)"
  status=1
elif [ ! -f "$BUILD/compile_commands.json" ]; then
  echo "lint: $BUILD/compile_commands.json is missing: build first (make build)"
  status=1
else
  base=${KJ_LINT_BASE:-}
  if [ -z "$base" ]; then
    if git rev-parse -q --verify origin/main >/dev/null && [ "$(git merge-base HEAD origin/main)" != "$(git rev-parse HEAD)" ]; then
      base=$(git merge-base HEAD origin/main)
    else
      base=$(git rev-parse -q --verify HEAD~1 || true)
    fi
  fi
  if [ "$base" = "all" ] || [ -z "$base" ]; then
    mapfile -t changed < <(git ls-files 'src/*.cpp')
  else
    mapfile -t changed < <(git diff --name-only --diff-filter=AM "$base" -- 'src/*.cpp')
  fi
  # Only files the build compiles (the cuda backend's where nvcc was found, and so on).
  tidy=()
  for f in "${changed[@]}"; do
    grep -q "\"file\": \"$PWD/$f\"" "$BUILD/compile_commands.json" && tidy+=("$f")
  done
  if [ ${#tidy[@]} -eq 0 ]; then
    echo "lint: clang-tidy: no C++ file of src/ changed since ${base:-the first commit}"
  else
    out=$(printf '%s\0' "${tidy[@]}" | xargs -0 -n 4 -P "$(nproc)" clang-tidy -p "$BUILD" --quiet \
      --warnings-as-errors='*' 2>&1)
    rc=$?
    findings=$(grep -E "(warning|error):" <<<"$out" || true)
    if [ $rc -ne 0 ] || [ -n "$findings" ]; then
      echo "${findings:-$out}"
      echo "lint: clang-tidy: findings in the ${#tidy[@]} changed files (exit $rc)"
      status=1
    else
      echo "lint: clang-tidy: ${#tidy[@]} changed files, no warnings"
    fi
  fi
fi
exit $status
