//===- Cubin.cpp - PTX to a cubin in process, through nvJitLink -----------===//
//
// nvJitLink's C API, opened with dlopen: fuser builds and runs without the
// CUDA toolkit, and only a compile that asks for a cubin needs it. The entry
// points are declared here (their C signatures are nvJitLink.h's, stable
// since CUDA 12.0), so no CUDA header is needed to build either.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/Cubin.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Threading.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace mlir;

namespace {

using Handle = void *;
struct NvJitLink {
  void *lib = nullptr;
  std::string tried; ///< Where it looked, for the message when not found.
  int (*create)(Handle *, uint32_t, const char **) = nullptr;
  int (*destroy)(Handle *) = nullptr;
  int (*addData)(Handle, int, const void *, size_t, const char *) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*cubinSize)(Handle, size_t *) = nullptr;
  int (*cubin)(Handle, void *) = nullptr;
  int (*errorLogSize)(Handle, size_t *) = nullptr;
  int (*errorLog)(Handle, char *) = nullptr;
  int (*version)(unsigned *, unsigned *) = nullptr;
};

/// NVJITLINK_INPUT_PTX of nvJitLink.h's nvJitLinkInputType.
constexpr int kInputPtx = 2;

/// Opens nvJitLink once per process: $FUSER_NVJITLINK when set (a path; a
/// test points it at nothing), else the loader's search path, then the
/// toolkit's lib64 under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
const NvJitLink &nvJitLink() {
  static NvJitLink api;
  static llvm::once_flag once;
  llvm::call_once(once, [] {
    llvm::SmallVector<std::string> candidates;
    if (const char *path = std::getenv("FUSER_NVJITLINK")) {
      candidates.push_back(path);
    } else {
      for (const char *name : {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"})
        candidates.push_back(name);
      for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char *home = std::getenv(var); home && *home)
          candidates.push_back(std::string(home) + "/lib64/libnvJitLink.so");
      candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so");
    }
    for (const std::string &c : candidates) {
      api.tried += (api.tried.empty() ? "" : ", ") + c;
      if ((api.lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    }
    if (!api.lib)
      return;
    bool all = true;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api.lib, name));
      all = all && fn;
    };
    get(api.create, "nvJitLinkCreate");
    get(api.destroy, "nvJitLinkDestroy");
    get(api.addData, "nvJitLinkAddData");
    get(api.complete, "nvJitLinkComplete");
    get(api.cubinSize, "nvJitLinkGetLinkedCubinSize");
    get(api.cubin, "nvJitLinkGetLinkedCubin");
    get(api.errorLogSize, "nvJitLinkGetErrorLogSize");
    get(api.errorLog, "nvJitLinkGetErrorLog");
    get(api.version, "nvJitLinkVersion");
    if (!all) {
      api.tried += " (found, but without the nvJitLink entry points)";
      dlclose(api.lib);
      api.lib = nullptr;
    }
  });
  return api;
}

} // namespace

std::string fuser::nvJitLinkVersion() {
  const NvJitLink &api = nvJitLink();
  unsigned major = 0, minor = 0;
  if (!api.lib || api.version(&major, &minor))
    return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

bool fuser::ptxToCubin(llvm::StringRef ptx, llvm::StringRef chip, std::string &cubin,
                       std::string &error) {
  const NvJitLink &api = nvJitLink();
  if (!api.lib) {
    error = "a cubin needs nvJitLink, the CUDA toolkit's in-process ptxas "
            "(libnvJitLink.so, CUDA 12 or newer); not found (tried " +
            api.tried + "); set CUDA_HOME or FUSER_NVJITLINK, or compile without a cubin";
    return false;
  }
  std::string arch = "-arch=" + chip.str();
  const char *options[] = {arch.c_str()};
  Handle h = nullptr;
  if (int r = api.create(&h, 1, options)) {
    error = "nvJitLinkCreate(" + arch + ") failed with error " + std::to_string(r);
    return false;
  }
  // The text with its NUL, as nvJitLink's samples pass PTX.
  std::string text = ptx.str();
  int r = api.addData(h, kInputPtx, text.c_str(), text.size() + 1, "fuser.ptx");
  if (!r)
    r = api.complete(h);
  size_t size = 0;
  if (!r)
    r = api.cubinSize(h, &size);
  if (!r) {
    cubin.assign(size, '\0');
    r = api.cubin(h, cubin.data());
  }
  if (r) {
    size_t logSize = 0;
    std::string log;
    if (!api.errorLogSize(h, &logSize) && logSize > 1) {
      log.assign(logSize, '\0');
      if (api.errorLog(h, log.data()))
        log.clear();
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
        log.pop_back();
    }
    error = "nvJitLink failed (error " + std::to_string(r) + ") on the PTX for " + chip.str() +
            (log.empty() ? std::string() : ":\n" + log);
  }
  api.destroy(&h);
  return r == 0;
}
