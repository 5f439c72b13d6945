//===- FusionName.h - what a fusion may be named ----------------*- C++ -*-===//
//
// Kernels are named after their fusion, and PTX names are identifiers: LLVM
// aborts on some other characters and writes PTX that ptxas rejects for
// others ('.', a leading digit). One rule, checked where a fusion is
// finished (the C API builder) and where it is compiled (fuser-segment, for
// .mlir input).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSIONNAME_H
#define FUSER_DIALECT_FUSER_IR_FUSIONNAME_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::fuser {

/// Letters, digits, '_' and '$', not starting with a digit.
inline bool isValidFusionName(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; });
}

/// The error for a name isValidFusionName refuses.
inline std::string invalidFusionNameMessage(llvm::StringRef name) {
  return ("fusion name '" + name +
          "' is not a PTX identifier: use letters, digits, '_' and '$', not starting with a "
          "digit")
      .str();
}

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_FUSIONNAME_H
