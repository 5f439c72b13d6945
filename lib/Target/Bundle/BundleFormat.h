//===- BundleFormat.h - constants of docs/bundle.md -------------*- C++ -*-===//
#ifndef FUSER_TARGET_BUNDLE_BUNDLEFORMAT_H
#define FUSER_TARGET_BUNDLE_BUNDLEFORMAT_H

#include <cstdint>

namespace mlir::fuser::bundle {

constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'R', 'B', 'N', 'D'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kNone = 0xFFFFFFFFu;

enum ModuleKind : uint32_t { kPtx = 1, kEmulationMlir = 2 };

enum DType : uint8_t {
  kI1 = 1, kI8 = 2, kI32 = 3, kI64 = 4, kF16 = 5, kBF16 = 6, kF32 = 7, kF64 = 8
};

enum Opcode : uint16_t {
  kConst = 1, kDim, kAdd, kSub, kMul, kDiv, kCeilDiv, kRem, kMin, kMax,
  kEq, kNe, kLt, kLe, kAnd, kOr, kSelect, kAligned, kAssert, kAlloc, kLaunch,
  kResultDim
};

enum ParamKind : uint8_t { kPointer = 1, kI32Param = 2, kI64Param = 3 };

// Record sizes in bytes.
constexpr uint64_t kHeaderSize = 64, kModuleSize = 32, kFusionSize = 64,
                   kTensorSize = 24, kInstrSize = 24, kLaunchSize = 48,
                   kParamSize = 8;

} // namespace mlir::fuser::bundle

#endif
