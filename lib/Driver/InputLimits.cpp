//===- InputLimits.cpp - bounds on what a compile reads and how deep it goes ===//
//
// See InputLimits.h.
//
//===----------------------------------------------------------------------===//

#include "fuser/Driver/InputLimits.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::fuser;

bool mlir::fuser::checkNestingDepth(llvm::StringRef text, std::string &error) {
  unsigned depth = 0, line = 1;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    char next = i + 1 < n ? text[i + 1] : 0;
    switch (c) {
    case '\n':
      ++line;
      break;
    case '"': // a string literal, with escapes
      for (++i; i < n && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
      }
      break;
    case '/': // a // comment
      if (next == '/')
        while (i < n && text[i] != '\n')
          ++i;
      if (i < n && text[i] == '\n')
        ++line;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (c == '<' && next == '=')
        break; // <= compares
      if (++depth > kMaxNestingDepth) {
        error = "the input nests deeper than " + std::to_string(kMaxNestingDepth) +
                " levels of brackets (line " + std::to_string(line) + ")";
        return false;
      }
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      if (c == '>' && next == '=')
        break; // >= compares
      if (c == '>' && i > 0 && text[i - 1] == '-')
        break; // -> is an arrow
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return true;
}

std::unique_ptr<llvm::MemoryBuffer> mlir::fuser::readInputFile(llvm::StringRef path,
                                                              std::string &error) {
  std::string p = path.str();
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot read the file: ") + std::strerror(errno);
    return nullptr;
  }
  // Read whatever the file is (a pipe, a device) in chunks, up to the limit:
  // its size as reported says nothing for /dev/zero.
  std::string data;
  char chunk[1 << 16];
  while (true) {
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      error = std::string("cannot read the file: ") + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
    if (got == 0)
      break;
    if (data.size() + size_t(got) > kMaxInputBytes) {
      error = "the file is larger than " + std::to_string(kMaxInputBytes >> 20) +
              " MiB, the most fuser reads";
      ::close(fd);
      return nullptr;
    }
    data.append(chunk, size_t(got));
  }
  ::close(fd);
  return llvm::MemoryBuffer::getMemBufferCopy(data, path);
}
