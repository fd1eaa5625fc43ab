# -*- Python -*-
# lit configuration of the sigreg regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SIGREG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sigreg_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%sigreg_src_root", config.sigreg_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.sigreg_tools_dir, config.llvm_tools_dir]
tools = ["sigreg-opt", "sigreg-run", "sigreg-aot-run"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas (CUDA toolkit) checks the generated PTX where it is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None
)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# Serializing kernels to PTX links libdevice from the CUDA toolkit.
if os.path.isdir("/usr/local/cuda/nvvm/libdevice"):
    config.available_features.add("cuda-toolkit")

# GPU tests run only where a CUDA device answers (the GPU machine).
def has_cuda_gpu():
    if os.environ.get("SIGREG_FORCE_NO_GPU"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False

if has_cuda_gpu():
    config.available_features.add("cuda-gpu")
