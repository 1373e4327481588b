#!/usr/bin/env bash
# Puts KernelBench's public problems (levels 1, 2 and 3) in .kb/KernelBench/ (ignored by git: their
# code is not part of kjudge), for `kjudge import kernelbench` and the gpu-check "kb" stage.
# Usage: scripts/fetch-kernelbench.sh [GIT_URL]   (needs network; on a machine without it, copy
# a checkout's KernelBench/level1 and level2 there, which is what the gpu-check carries)
set -euo pipefail
cd "$(dirname "$0")/.."
url=${1:-https://github.com/ScalingIntelligence/KernelBench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --depth 1 --quiet "$url" "$tmp/repo"
mkdir -p .kb/KernelBench
for lvl in level1 level2 level3; do
  rm -rf ".kb/KernelBench/$lvl"
  cp -r "$tmp/repo/KernelBench/$lvl" ".kb/KernelBench/$lvl"
  echo "fetch-kernelbench: .kb/KernelBench/$lvl: $(ls ".kb/KernelBench/$lvl" | wc -l) problem files ($(git -C "$tmp/repo" rev-parse --short HEAD))"
done
