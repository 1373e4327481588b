"""Prints the pip requirements that make an installed torch wheel loadable on this machine.

torch's Linux wheels from PyPI link the CUDA libraries (DT_NEEDED), so they must be present to
`import torch` even on a machine without a GPU. Where a CUDA toolkit is installed system-wide
(found by the dynamic linker), only the libraries it lacks are needed; they are mapped to the
packages and versions that torch itself pins in its metadata. Output: one line with the
requirements (possibly empty); a first line "UNKNOWN <libs>" when a missing library cannot be
mapped (the caller then installs torch's full dependency set).
"""
import glob
import importlib.metadata as md
import os
import re
import subprocess
import sysconfig

lib_dir = os.path.join(sysconfig.get_paths()["purelib"], "torch", "lib")
missing = set()
for so in glob.glob(os.path.join(lib_dir, "*.so")):
    if os.path.basename(so) == "libcaffe2_nvrtc.so":
        continue  # needs the driver's libcuda.so.1; loaded only on GPU use
    out = subprocess.run(["ldd", so], capture_output=True, text=True).stdout
    missing.update(m.group(1) for m in re.finditer(r"^\s*(\S+) => not found", out, re.M))
missing.discard("libcuda.so.1")  # the driver, never from PyPI

reqs = [r.split(";")[0].strip() for r in (md.requires("torch") or [])]


def pinned(prefix):
    return next((r for r in reqs if r.lower().startswith(prefix)), None)


toolkit = pinned("cuda-toolkit")
toolkit_version = toolkit.split("==")[1] if toolkit and "==" in toolkit else None
packages = {"libcusparseLt": pinned("nvidia-cusparselt"), "libnvshmem": pinned("nvidia-nvshmem"),
            "libcudnn": pinned("nvidia-cudnn"), "libnccl": pinned("nvidia-nccl")}
toolkit_extras = {"libcufile": "cufile", "libcudart": "cudart", "libcublasLt": "cublas",
                  "libcublas": "cublas", "libcufft": "cufft", "libcurand": "curand",
                  "libcusolver": "cusolver", "libcusparse.": "cusparse", "libnvJitLink": "nvjitlink",
                  "libnvrtc": "nvrtc", "libcupti": "cupti", "libnvToolsExt": "nvtx"}

out, extras, unknown = set(), set(), []
for name in sorted(missing):
    key = next((k for k in packages if name.startswith(k)), None)
    if key and packages[key]:
        out.add(packages[key])
        continue
    key = next((k for k in toolkit_extras if name.startswith(k)), None)
    if key and toolkit_version:
        extras.add(toolkit_extras[key])
        continue
    unknown.append(name)
if extras:
    out.add(f"cuda-toolkit[{','.join(sorted(extras))}]=={toolkit_version}")
if unknown:
    print("UNKNOWN " + " ".join(unknown))
print(" ".join(sorted(out)))
