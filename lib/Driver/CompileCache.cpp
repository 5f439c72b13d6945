//===- CompileCache.cpp - compile results kept by what determines them ----===//
//
// Memory: a map from key to output, least recently used first out past
// 256 MB, behind one mutex (a lookup copies the output out).
//
// Directory: one file per key, `<key>.fcc`:
//   "FUSERCC2"  8 bytes
//   length      8 bytes, little endian: the payload's size
//   sha256      32 bytes: of the payload
//   payload     the key (an entry copied or linked to another key's name is
//               a miss), the bundle, then the (fusion, PTX) and (fusion,
//               kernel IR) lists, each string as an 8-byte length and its
//               bytes
// Written to a temporary file in the directory and renamed over the entry,
// so a reader sees a whole old entry or a whole new one, from any number of
// processes. A file that is short, long, or whose checksum or layout is
// wrong is a miss: it is deleted and written again. A hit touches the file;
// after a store the directory is trimmed to its limit by deleting the least
// recently touched entries, and temporary files an hour old (left by a
// process that died mid-write) are deleted.
//
//===----------------------------------------------------------------------===//

#include "fuser/Driver/CompileCache.h"
#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Target/Cubin.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cstdlib>
#include <list>
#include <mutex>
#include <unordered_map>

using namespace mlir;
using namespace mlir::fuser;

namespace {

constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'R', 'C', 'C', '2'};
constexpr uint64_t kMemoryLimit = uint64_t(256) << 20;

/// The mapping of this process that holds `address`, from /proc/self/maps:
/// its range ("begin-end") and its file's path (absolute, " (deleted)"
/// after it when the file was replaced since it was mapped); empty when
/// not found.
std::pair<std::string, std::string> mappingOf(const void *address) {
  auto maps = llvm::MemoryBuffer::getFileAsStream("/proc/self/maps");
  if (!maps)
    return {};
  uintptr_t at = reinterpret_cast<uintptr_t>(address);
  llvm::SmallVector<llvm::StringRef> lines;
  (*maps)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    // "begin-end perms offset dev inode   path"
    auto [range, rest] = line.split(' ');
    auto [begin, end] = range.split('-');
    unsigned long long b, e;
    if (begin.getAsInteger(16, b) || end.getAsInteger(16, e) || at < b || at >= e)
      continue;
    size_t slash = rest.find('/');
    if (slash == llvm::StringRef::npos)
      return {};
    return {range.str(), rest.drop_front(slash).trim().str()};
  }
  return {};
}

/// The build of fuser this code is part of: the path, size and
/// modification time of the file (library or executable) holding it, so
/// that a rebuilt fuser never reads what an older one cached; "" when it
/// cannot be known (then the directory is not used). The file is the one
/// mapped at this code, read through /proc/self/map_files: dladdr names an
/// executable by its argv[0], which a statically linked program started
/// through PATH, or after a chdir, does not locate, and a library rebuilt
/// after it was loaded is another file at the same path (the mapping keeps
/// the old one, as " (deleted)").
const std::string &buildIdentity() {
  static const std::string id = [] {
    auto identity = [](llvm::StringRef path, const struct stat &st) {
      return (llvm::Twine(path) + ":" + llvm::Twine((uint64_t)st.st_ino) + ":" +
              llvm::Twine((uint64_t)st.st_size) + ":" +
              llvm::Twine((uint64_t)st.st_mtim.tv_sec) + "." +
              llvm::Twine((uint64_t)st.st_mtim.tv_nsec))
          .str();
    };
    auto [range, path] = mappingOf(reinterpret_cast<const void *>(&compileCacheKey));
    struct stat st;
    if (!range.empty() && stat(("/proc/self/map_files/" + range).c_str(), &st) == 0)
      return identity(path, st);
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&compileCacheKey), &info) && info.dli_fname &&
        llvm::sys::path::is_absolute(info.dli_fname) && stat(info.dli_fname, &st) == 0 &&
        !llvm::StringRef(path).ends_with(" (deleted)"))
      return identity(info.dli_fname, st);
    return std::string();
  }();
  return id;
}

uint64_t outputBytes(const CompileOutput &o) {
  uint64_t n = o.bundle.size();
  for (auto &p : o.ptx)
    n += p.first.size() + p.second.size();
  for (auto &p : o.kernelIR)
    n += p.first.size() + p.second.size();
  return n;
}

class MemoryCache {
public:
  bool lookup(const std::string &key, CompileOutput &out) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it == entries.end())
      return false;
    order.splice(order.begin(), order, it->second.position);
    out = it->second.output;
    return true;
  }
  void store(const std::string &key, const CompileOutput &out) {
    uint64_t size = outputBytes(out);
    if (size > kMemoryLimit)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    if (entries.count(key))
      return;
    order.push_front(key);
    entries[key] = {out, order.begin(), size};
    bytes += size;
    while (bytes > kMemoryLimit) {
      auto last = entries.find(order.back());
      bytes -= last->second.size;
      entries.erase(last);
      order.pop_back();
    }
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    entries.clear();
    order.clear();
    bytes = 0;
  }

private:
  struct Entry {
    CompileOutput output;
    std::list<std::string>::iterator position;
    uint64_t size;
  };
  std::mutex mutex;
  std::unordered_map<std::string, Entry> entries;
  std::list<std::string> order; // most recently used first
  uint64_t bytes = 0;
};

MemoryCache &memory() {
  static MemoryCache *cache = new MemoryCache(); // never destroyed: used at exit
  return *cache;
}

void putString(std::string &buf, llvm::StringRef s) {
  uint64_t n = s.size();
  for (int i = 0; i < 8; ++i)
    buf.push_back(static_cast<char>(n >> (8 * i)));
  buf.append(s.data(), s.size());
}

bool getString(llvm::StringRef &in, std::string &s) {
  if (in.size() < 8)
    return false;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= uint64_t(static_cast<uint8_t>(in[i])) << (8 * i);
  in = in.drop_front(8);
  if (n > in.size())
    return false;
  s = in.take_front(n).str();
  in = in.drop_front(n);
  return true;
}

std::string serialize(const std::string &key, const CompileOutput &o) {
  std::string payload;
  putString(payload, key);
  putString(payload, o.bundle);
  for (auto *list : {&o.ptx, &o.kernelIR}) {
    putString(payload, std::to_string(list->size()));
    for (auto &[name, text] : *list) {
      putString(payload, name);
      putString(payload, text);
    }
  }
  std::array<uint8_t, 32> sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));
  std::string file(kMagic, sizeof(kMagic));
  uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i)
    file.push_back(static_cast<char>(n >> (8 * i)));
  file.append(reinterpret_cast<const char *>(sum.data()), sum.size());
  file += payload;
  return file;
}

bool deserialize(llvm::StringRef file, const std::string &key, CompileOutput &o) {
  if (file.size() < 48 || file.take_front(8) != llvm::StringRef(kMagic, 8))
    return false;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= uint64_t(static_cast<uint8_t>(file[8 + i])) << (8 * i);
  llvm::StringRef payload = file.drop_front(48);
  if (payload.size() != n)
    return false;
  std::array<uint8_t, 32> sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));
  if (llvm::StringRef(reinterpret_cast<const char *>(sum.data()), 32) != file.substr(16, 32))
    return false;
  CompileOutput r;
  std::string stored;
  if (!getString(payload, stored) || stored != key || !getString(payload, r.bundle))
    return false;
  for (auto *list : {&r.ptx, &r.kernelIR}) {
    std::string count;
    unsigned long long k;
    if (!getString(payload, count) || llvm::getAsUnsignedInteger(count, 10, k))
      return false;
    for (unsigned long long i = 0; i < k; ++i) {
      std::string name, text;
      if (!getString(payload, name) || !getString(payload, text))
        return false;
      list->emplace_back(std::move(name), std::move(text));
    }
  }
  if (!payload.empty())
    return false;
  o = std::move(r);
  return true;
}

std::string entryPath(const std::string &dir, const std::string &key) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, key + ".fcc");
  return std::string(p);
}

bool diskLookup(const std::string &dir, const std::string &key, uint64_t maxBytes,
                CompileOutput &out) {
  std::string path = entryPath(dir, key);
  // Only a regular file is an entry: a FIFO at the path blocked its reader
  // for ever, and a device (a link to /dev/zero) never ended. Anything else
  // is a miss, and the store renames a regular file over it. Read with
  // read(2), never mapped: a file another process truncates in place
  // faulted a mapping (SIGBUS; LLVM's MemoryBuffer maps files of 4 pages or
  // more even when told they are volatile); a short read is a corrupt
  // entry. One larger than the store would write is one too.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return false;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  std::string file;
  bool whole = (uint64_t)st.st_size <= maxBytes;
  if (whole) {
    file.resize(st.st_size);
    size_t got = 0;
    while (got < file.size()) {
      ssize_t n = ::read(fd, &file[got], file.size() - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += n;
    }
    whole = got == file.size();
  }
  ::close(fd);
  if (!whole || !deserialize(file, key, out)) {
    llvm::sys::fs::remove(path); // corrupt or truncated: never loaded, rewritten
    return false;
  }
  // Touch it: the trim deletes the least recently used entries first. (Not
  // an open for writing, which recreated an entry another process had just
  // deleted, as an empty file.)
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  return true;
}

void trim(const std::string &dir, uint64_t limit) {
  struct File {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<File> files;
  uint64_t total = 0;
  std::error_code ec;
  auto stale = std::chrono::system_clock::now() - std::chrono::hours(1);
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    llvm::StringRef ext = llvm::sys::path::extension(it->path());
    llvm::sys::fs::file_status st;
    if ((ext != ".fcc" && ext != ".tmp") || llvm::sys::fs::status(it->path(), st))
      continue;
    // A temporary file an hour old is a writer's that died before its
    // rename (a live one renames within a compile's time).
    if (ext == ".tmp") {
      if (st.getLastModificationTime() < stale)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    files.push_back({it->path(), st.getSize(), st.getLastModificationTime()});
    total += st.getSize();
  }
  if (total <= limit)
    return;
  llvm::sort(files, [](const File &a, const File &b) { return a.time < b.time; });
  for (const File &f : files) {
    if (total <= limit)
      break;
    if (!llvm::sys::fs::remove(f.path))
      total -= f.size;
  }
}

/// Stores `out` under `key`; returns why it could not, or "" when it did
/// (an output over the size limit is not an error: it is not stored).
std::string diskStore(const CompileCacheOptions &cache, const std::string &key,
                      const CompileOutput &out) {
  if (std::error_code ec = llvm::sys::fs::create_directories(cache.dir))
    return "cannot create it: " + ec.message();
  std::string file = serialize(key, out);
  if (file.size() > cache.maxDiskBytes)
    return "";
  llvm::SmallString<256> temp;
  int fd;
  llvm::SmallString<256> model(cache.dir);
  llvm::sys::path::append(model, key + ".%%%%%%%%.tmp");
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return "cannot create a file in it: " + ec.message();
  std::string error;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << file;
    os.close();
    if (os.has_error())
      error = "cannot write " + temp.str().str() + ": " + os.error().message();
    os.clear_error();
  }
  if (error.empty())
    if (std::error_code ec = llvm::sys::fs::rename(temp, entryPath(cache.dir, key)))
      error = "cannot rename " + temp.str().str() + ": " + ec.message();
  if (!error.empty()) {
    llvm::sys::fs::remove(temp);
    return error;
  }
  trim(cache.dir, cache.maxDiskBytes);
  return "";
}

/// Whether a compile of `module` can write its ops' locations into the
/// bundle: a run-time size check (a dim known only at launch) and an index
/// check (gather, index_select, scatter_add, index_add) name the op's
/// location in their messages. Such a module is keyed with its locations,
/// so that a hit never reports another source's lines; any other hits
/// whatever its locations.
bool bundleNamesLocations(ModuleOp module) {
  auto dynamic = [](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && !r.hasStaticShape();
  };
  return module
      ->walk([&](Operation *op) {
        if (isIndexingOp(op) || llvm::any_of(op->getOperandTypes(), dynamic) ||
            llvm::any_of(op->getResultTypes(), dynamic))
          return WalkResult::interrupt();
        for (Region &r : op->getRegions())
          for (Block &b : r)
            if (llvm::any_of(b.getArgumentTypes(), dynamic))
              return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace

std::string mlir::fuser::compileCacheKey(ModuleOp module, const DriverOptions &o) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "fuser compile cache 1\n" << buildIdentity() << "\nLLVM " << LLVM_VERSION_STRING
     << "\nchip " << o.chip << " ptx " << o.ptx << " fast-math " << o.fastMath
     << " index-bits " << o.indexBits << " math " << o.math << " opt " << o.optLevel
     << " assume-aligned " << o.assumeAligned << " allow-tf32 " << o.allowTf32
     << " emulation " << o.emulation << " plant-bug " << o.plantBug
     << (o.cubin ? " cubin nvJitLink " + nvJitLinkVersion() : std::string()) << "\nschedule "
     << o.schedule << "\ntuning " << o.tuning.size() << "\n"
     << o.tuning << "\n";
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(
                        bundleNamesLocations(module)));
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

LogicalResult mlir::fuser::compileModuleCached(ModuleOp module, const DriverOptions &options,
                                               const CompileCacheOptions &cache,
                                               CompileOutput &out, bool &hit) {
  hit = false;
  auto compileCopy = [&] {
    OwningOpRef<ModuleOp> copy = module.clone();
    return compileModule(*copy, options, out);
  };
  if (!cache.enabled || options.keepStages || options.explainSchedule ||
      !options.plantBug.empty())
    return compileCopy();
  std::string dir = cache.dir;
  if (dir.empty())
    if (const char *env = std::getenv("FUSER_CACHE_DIR"))
      dir = env;
  // A build that cannot name itself could read another build's entries:
  // the directory is not used (the memory, of this process, still is).
  if (buildIdentity().empty())
    dir.clear();
  std::string key = compileCacheKey(module, options);
  if (memory().lookup(key, out) || (!dir.empty() && diskLookup(dir, key, cache.maxDiskBytes, out))) {
    hit = true;
    out.timings.clear(); // nothing was compiled
    memory().store(key, out);
    return success();
  }
  if (failed(compileCopy()))
    return failure();
  memory().store(key, out);
  if (!dir.empty()) {
    CompileCacheOptions withDir = cache;
    withDir.dir = dir;
    // The compile succeeded; the cache is only a saving. The caller hears
    // why it was not kept (a directory that cannot be created or written
    // would otherwise cost a full compile in every process, unexplained).
    std::string why = diskStore(withDir, key, out);
    if (!why.empty())
      emitWarning(module.getLoc())
          << "the compile cache directory '" << dir << "' was not used (" << why
          << "): the output is not stored";
  }
  return success();
}

void mlir::fuser::clearCompileMemoryCache() { memory().clear(); }
