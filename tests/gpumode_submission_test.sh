#!/usr/bin/env bash
# scripts/gpumode-submission.py's output, built for real: examples/batched_qr/blocked.cu as a GPU
# MODE submission is compiled by torch's load_inline (the candidate by nvcc, the glue by g++),
# loaded, and its custom_kernel refuses a host tensor with the glue's message (a machine without a
# GPU cannot run it further). Usage: tests/gpumode_submission_test.sh PYTHON_WITH_TORCH REPO WORKDIR
set -euo pipefail
py=$1 root=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
python3 "$root/scripts/gpumode-submission.py" "$root/examples/batched_qr/blocked.cu" --problem batched_qr \
  --out "$work/submission.py"
# GPU MODE's task.py for the problem: the two type names a submission imports.
printf 'import torch\nfrom typing import TypeVar\n\ninput_t = TypeVar("input_t", bound=torch.Tensor)\noutput_t = TypeVar("output_t")\n' \
  >"$work/task.py"
cd "$work"
TORCH_EXTENSIONS_DIR="$work/ext" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" MAX_JOBS=2 "$py" -c '
import torch, submission
try:
    submission.custom_kernel(torch.randn(2, 4, 4))
except RuntimeError as e:
    msg = str(e).splitlines()[0]
    assert "input 0 must be a contiguous CUDA tensor" in msg, msg
    print("built and loaded; a host tensor refused:", msg)
else:
    raise SystemExit("custom_kernel accepted a host tensor")
'
rm -rf "$work"
