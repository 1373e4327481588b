#!/usr/bin/env bash
# The main job: judge the shipped examples on the best device present.
set -euo pipefail
build=${1:-build}
device=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/bin/kjudge-worker-cuda" ]; then
  device=cuda
fi
echo "demo: device $device"
exec "$build/bin/kjudge" demo --device "$device"
