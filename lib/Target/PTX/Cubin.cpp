//===- Cubin.cpp - PTX to a cubin in process, through nvJitLink -----------===//
//
// nvJitLink's C API, opened with dlopen: fuser builds and runs without the
// CUDA toolkit, and only a compile that asks for a cubin needs it. The entry
// points are declared here (their C signatures are nvJitLink.h's, the same
// since CUDA 12.0), so no CUDA header is needed to build either.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/Cubin.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Threading.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <iterator>
#include <type_traits>

using namespace mlir;

namespace {

using Handle = void *;
struct NvJitLink {
  void *lib = nullptr;
  std::string tried; ///< Where it looked, for the message when not found.
  bool exact = false; ///< $FUSER_NVJITLINK named the library.
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

/// Resolves nvJitLink's entry points in `lib`: the plain names (CUDA 12.3
/// and newer export them) or else the versioned ones the header's inline
/// wrappers call (`__nvJitLinkCreate_12_0`, ..._13_0), which are all that
/// CUDA 12.0 to 12.2 export. nvJitLinkVersion is optional (12.3 and newer).
bool resolve(void *lib, NvJitLink &api) {
  auto get = [&](auto &fn, const char *name) {
    void *p = dlsym(lib, name);
    for (const char *v : {"_13_0", "_12_0"})
      if (!p)
        p = dlsym(lib, (std::string("__") + name + v).c_str());
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    return p != nullptr;
  };
  bool all = get(api.create, "nvJitLinkCreate") & get(api.destroy, "nvJitLinkDestroy") &
             get(api.addData, "nvJitLinkAddData") & get(api.complete, "nvJitLinkComplete") &
             get(api.cubinSize, "nvJitLinkGetLinkedCubinSize") &
             get(api.cubin, "nvJitLinkGetLinkedCubin") &
             get(api.errorLogSize, "nvJitLinkGetErrorLogSize") &
             get(api.errorLog, "nvJitLinkGetErrorLog");
  api.version = reinterpret_cast<int (*)(unsigned *, unsigned *)>(dlsym(lib, "nvJitLinkVersion"));
  return all;
}

/// Opens nvJitLink once per process: $FUSER_NVJITLINK when set and not
/// empty (a path; a test points it at nothing), else the toolkit's lib64
/// under $CUDA_HOME and $CUDA_PATH, then the loader's search path, then
/// /usr/local/cuda. The first library that has the entry points wins.
const NvJitLink &nvJitLink() {
  static NvJitLink api;
  static llvm::once_flag once;
  llvm::call_once(once, [] {
    llvm::SmallVector<std::string> candidates;
    if (const char *path = std::getenv("FUSER_NVJITLINK"); path && *path) {
      candidates.push_back(path);
      api.exact = true;
    } else {
      for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char *home = std::getenv(var); home && *home)
          candidates.push_back(std::string(home) + "/lib64/libnvJitLink.so");
      for (const char *name : {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"})
        candidates.push_back(name);
      candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so");
    }
    for (const std::string &c : candidates) {
      api.tried += (api.tried.empty() ? "" : "; ") + c;
      void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        const char *why = dlerror();
        if (why && api.exact)
          api.tried += std::string(": ") + why;
        continue;
      }
      if (resolve(lib, api)) {
        api.lib = lib;
        return;
      }
      api.tried += ": no nvJitLink entry points";
      dlclose(lib);
    }
  });
  return api;
}

/// nvJitLinkResult's names (nvJitLink.h), for messages.
std::string resultName(int r) {
  static const char *names[] = {"NVJITLINK_SUCCESS",
                                "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
                                "NVJITLINK_ERROR_MISSING_ARCH",
                                "NVJITLINK_ERROR_INVALID_INPUT",
                                "NVJITLINK_ERROR_PTX_COMPILE",
                                "NVJITLINK_ERROR_NVVM_COMPILE",
                                "NVJITLINK_ERROR_INTERNAL",
                                "NVJITLINK_ERROR_THREADPOOL",
                                "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
                                "NVJITLINK_ERROR_FINALIZE",
                                "NVJITLINK_ERROR_NULL_INPUT",
                                "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
                                "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
                                "NVJITLINK_ERROR_ARCH_MISMATCH",
                                "NVJITLINK_ERROR_OUTDATED_LIBRARY",
                                "NVJITLINK_ERROR_MISSING_FATBIN",
                                "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
                                "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
                                "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
  if (r >= 0 && r < (int)std::size(names))
    return names[r];
  return "nvJitLink error " + std::to_string(r);
}

} // namespace

std::string fuser::nvJitLinkVersion() {
  const NvJitLink &api = nvJitLink();
  unsigned major = 0, minor = 0;
  if (!api.lib)
    return "";
  // Before 12.3 there is no version query: the library's path names it.
  if (!api.version || api.version(&major, &minor)) {
    Dl_info info;
    return dladdr(reinterpret_cast<void *>(api.create), &info) && info.dli_fname
               ? std::string("at ") + info.dli_fname
               : "unknown";
  }
  return std::to_string(major) + "." + std::to_string(minor);
}

bool fuser::ptxToCubin(llvm::StringRef ptx, llvm::StringRef chip, std::string &cubin,
                       std::string &error) {
  const NvJitLink &api = nvJitLink();
  if (!api.lib) {
    error = "a cubin needs nvJitLink, the CUDA toolkit's in-process ptxas "
            "(libnvJitLink.so, CUDA 12 or newer); not found (tried " +
            api.tried + "); " +
            (api.exact ? "FUSER_NVJITLINK names the library to use"
                       : "set CUDA_HOME to the toolkit, or FUSER_NVJITLINK to the library") +
            ", or compile without a cubin";
    return false;
  }
  std::string arch = "-arch=" + chip.str();
  const char *options[] = {arch.c_str()};
  Handle h = nullptr;
  if (int r = api.create(&h, 1, options)) {
    error = "nvJitLinkCreate(" + arch + ") failed: " + resultName(r);
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
    error = "nvJitLink failed (" + resultName(r) + ") on the PTX for " + chip.str() +
            (log.empty() ? std::string() : ":\n" + log);
  }
  api.destroy(&h);
  return r == 0;
}
