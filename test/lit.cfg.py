# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FUSER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuser_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "check-example.sh", "check-norm-size.sh"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fuser_src", config.fuser_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.fuser_tools_dir, config.llvm_tools_dir]
tools = ["fuser-opt", "fuserc", "not", "count", "capi-builder", "capi-builder-errors", "capi-torch", "capi-compile", "capi-threads", "fuser-bundle-patch", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas from the CUDA toolkit, when the machine has it: tests that assemble
# PTX declare `REQUIRES: ptxas` and report as unsupported elsewhere.
import shutil
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    llvm_config.with_environment("PATH", os.path.dirname(ptxas), append_path=True)
llvm_config.with_environment("PATH", config.fuser_tools_dir, append_path=True)

# nvJitLink from the CUDA toolkit, which `--cubin` opens (lib/Target/PTX/
# Cubin.cpp looks in the same places): tests that make cubins declare
# `REQUIRES: nvjitlink`.
_homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
if any(h and os.path.exists(os.path.join(h, "lib64", "libnvJitLink.so")) for h in _homes):
    config.available_features.add("nvjitlink")
llvm_config.with_system_environment(["CUDA_HOME", "CUDA_PATH"])

# Hosts that can run code compiled for skylake-avx512 (its AVX-512 subsets
# in /proc/cpuinfo): tests that JIT the CPU emulation for that CPU
# (--emulator-cpu skylake-avx512) declare `REQUIRES: avx512-host`; on other
# hosts that code would die of an illegal instruction.
try:
    with open("/proc/cpuinfo") as f:
        _flags = set(next((l for l in f if l.startswith("flags")), "").split())
except OSError:
    _flags = set()
if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"} <= _flags:
    config.available_features.add("avx512-host")

# The runtime's fake CUDA driver (test/runtime): plans run against it log
# their launches without a GPU.
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.fuser_obj_root, "lib", "libfuser_fake_cuda.so")))
config.substitutions.append(
    ("%fake_cublaslt", os.path.join(config.fuser_obj_root, "lib", "libfuser_fake_cublaslt.so")))
