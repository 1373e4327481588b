#!/usr/bin/env bash
# Installs CPU PyTorch for kjudge's Python worker (kjudge-worker-py) into a virtual environment
# OUTSIDE the repository, and reuses it when it is already there (docs/python.md).
#
#   scripts/install-torch.sh            create/verify $KJUDGE_VENV (default ~/.cache/kjudge/venv)
#   scripts/install-torch.sh --print    print the venv's python3 path and exit (no install)
#
# Environment:
#   KJUDGE_VENV           where the venv lives (default ~/.cache/kjudge/venv)
#   KJUDGE_PYTHON_BASE    the interpreter the venv is created from (default: python3 on PATH).
#                         Its major.minor must be the one kjudge-worker-py embeds (CMake's
#                         FindPython3 picks the venv's base interpreter, so they agree).
#   KJUDGE_TORCH_VERSION  torch version from PyPI (default 2.11.0)
#
# Why "--no-deps": the PyPI wheel declares the CUDA runtime (cuda-toolkit, cudnn, nccl,
# nvshmem, cusparselt: several GB) and Triton as hard dependencies on Linux, but it loads them
# lazily: `import torch`, eager CPU ops and torch.compile (inductor's C++ backend) work without
# them. So we install the torch wheel alone (~530 MB) plus its pure-Python dependencies, then
# verify exactly that: import, an eager op, and a torch.compile'd function on cpu.
# On a GPU machine, point KJUDGE_PYTHON at an existing torch installation instead (e.g.
# /opt/torch/.venv/bin/python3); this script is for CPU-only machines and CI.
set -euo pipefail

VENV="${KJUDGE_VENV:-$HOME/.cache/kjudge/venv}"
BASE="${KJUDGE_PYTHON_BASE:-python3}"
TORCH_VERSION="${KJUDGE_TORCH_VERSION:-2.11.0}"
PY="$VENV/bin/python3"

if [ "${1:-}" = "--print" ]; then
  echo "$PY"
  exit 0
fi

# Pure-Python dependencies of torch (from the wheel's metadata) that CPU use needs. setuptools
# is declared by torch (inductor uses it on Python >= 3.12); pyyaml is optional but the
# GPU MODE importer reads task.yml with it.
PURE_DEPS=(filelock "typing-extensions>=4.10.0" "sympy>=1.13.3" "networkx>=2.5.1" jinja2 MarkupSafe
           "fsspec>=0.8.5" mpmath "setuptools<82" pyyaml numpy
           einops)  # einops: KernelBench level 3 (Mamba2) imports it

verify() {
  "$PY" - <<'EOF'
import sys, time
t0 = time.time()
import torch
x = torch.randn(64, 128)
y = torch.softmax(x, dim=-1)
assert torch.allclose(y.sum(-1), torch.ones(64), atol=1e-5)
f = torch.compile(lambda a: torch.relu(a) * 2.0 + 1.0)
z = f(x)
assert torch.allclose(z, torch.relu(x) * 2.0 + 1.0)
print(f"install-torch: torch {torch.__version__} on Python {sys.version.split()[0]} works "
      f"(eager + torch.compile on cpu, {time.time() - t0:.1f} s)")
EOF
}

if [ -x "$PY" ] && "$PY" -c "import torch, sympy, jinja2, yaml; torch.softmax(torch.ones(2, 2), -1)" >/dev/null 2>&1; then
  # Present and importable: reused as it is (the full check with torch.compile ran when it was
  # installed; it takes ~30 s on a two-core machine).
  echo "install-torch: reusing $VENV ($("$PY" -c 'import torch; print("torch", torch.__version__)' 2>/dev/null))"
  # A venv made before a pure dependency was added gets it (pip leaves the installed ones).
  "$PY" -c "import einops" >/dev/null 2>&1 || "$PY" -m pip install --quiet "${PURE_DEPS[@]}"
  exit 0
fi
if [ -x "$PY" ]; then
  echo "install-torch: $VENV exists but torch does not work; reinstalling" >&2
fi

# kjudge-worker-py embeds this interpreter: it needs Python.h and libpython (python3-dev on Debian).
has_dev() {
  "$BASE" -c 'import os, sysconfig as s; import sys; sys.exit(0 if os.path.exists(os.path.join(s.get_paths()["include"], "Python.h")) and s.get_config_var("LDLIBRARY") else 1)'
}
if ! "$BASE" -c "import venv, ensurepip" >/dev/null 2>&1 || ! has_dev; then
  # Debian splits venv/ensurepip into python3-venv; the embedded worker needs python3-dev.
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv python3-dev
  else
    echo "install-torch: $BASE has no venv/ensurepip module" >&2
    exit 1
  fi
fi

echo "install-torch: creating $VENV from $("$BASE" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
mkdir -p "$(dirname "$VENV")"
"$BASE" -m venv --clear "$VENV"
"$PY" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
"$PY" -m pip install --quiet "${PURE_DEPS[@]}"
echo "install-torch: downloading torch==$TORCH_VERSION from PyPI (~530 MB, without the CUDA runtime)"
"$PY" -m pip install --quiet --no-deps "torch==$TORCH_VERSION"

# The wheel's libraries name the CUDA libraries as DT_NEEDED, so they must exist for `import
# torch` even without a GPU. Where the machine has a CUDA toolkit (the cpp-kernels machines do:
# cudart, cuBLAS, cuDNN, NCCL, ...) only the few it lacks are installed, at the versions torch
# pins; an unmappable gap falls back to torch's full dependency set.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
reqs="$("$PY" "$HERE/torch_missing_libs.py")"
if echo "$reqs" | grep -q '^UNKNOWN'; then
  echo "install-torch: $(echo "$reqs" | head -1); installing torch's full dependency set" >&2
  "$PY" -m pip install --quiet "torch==$TORCH_VERSION"
elif [ -n "$(echo "$reqs" | tr -d '[:space:]')" ]; then
  echo "install-torch: installing what torch's libraries link and this machine lacks: $reqs"
  # cuda-toolkit[...] is a metapackage whose extras are the libraries: install it with deps.
  # shellcheck disable=SC2086
  "$PY" -m pip install --quiet $reqs
fi
verify
