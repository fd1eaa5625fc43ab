# -*- Python -*-
# lit configuration of the sigreg regression tests.

import os
import shutil
import subprocess

import lit.formats
import lit.llvm

# Without a build tree, lit runs on the source directory with the tools named
# by parameters: the GPU machine, which has no LLVM, runs the suite with the
# static tools and Debian's FileCheck/not/count (scripts/gpu-e2e.sh):
#   lit test --param sigreg_tools_dir=DIR [--param llvm_tools_dir=DIR]
#            [--param sigreg_obj_root=DIR]
# The build tree's lit.site.cfg.py sets these attributes instead.
if not hasattr(config, "sigreg_tools_dir"):
    params = lit_config.params
    if "sigreg_tools_dir" not in params:
        lit_config.fatal(
            "run lit on the build directory (build/test), or give "
            "--param sigreg_tools_dir=DIR (sigreg-opt, sigreg-run, sigreg-aot-run)"
        )
    config.sigreg_tools_dir = os.path.abspath(params["sigreg_tools_dir"])
    config.llvm_tools_dir = os.path.abspath(
        params.get("llvm_tools_dir", config.sigreg_tools_dir)
    )
    config.sigreg_src_root = os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))
    )
    config.sigreg_obj_root = os.path.abspath(
        params.get("sigreg_obj_root", os.path.join(config.sigreg_src_root, "build-lit"))
    )
    lit.llvm.initialize(lit_config, config)

from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SIGREG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
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
