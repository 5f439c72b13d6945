//===- Float8Conversions.cpp - fuser's fp8 conversions on every f32 -------===//
//
// JIT-compiles lib/Math/Float8.cpp's conversions (scalar and vector<4> forms,
// through upstream lowering and mlir::ExecutionEngine, the way the emulator
// runs kernels) and compares them bit for bit with two references that must
// agree with each other: the nearest code by definition (a table of the
// codes' values and their midpoints, ties to the even code) and PyTorch's
// own algorithm (c10/util/Float8_e4m3fn.h and Float8_e5m2.h, transliterated
// below), with `saturate` as PTX's .satfinite defines it.
//
// Saturating casts have a second form, the GPU's paired conversion
// (nvvm.convert.f32x2.to.f8x2, sm_89 on) that expandFloat8PairConversions
// replaces with arithmetic for the emulator and older chips: that form is
// checked against the same references, and the bare instruction's expansion
// against NVIDIA's own model of cvt.rn.satfinite (cuda_fp8.h's host code,
// when the CUDA toolkit is installed; FUSER_HAVE_CUDA_FP8).
//
//   fuser-fp8-conversions               the ctest run: every 97th f32 bit
//                                       pattern (44 million), every tie and
//                                       its neighbours, and every code
//   fuser-fp8-conversions --exhaustive  all 2^32 f32 inputs (make fp8-exhaustive)
//
//===----------------------------------------------------------------------===//

#include "fuser/Math/Float8.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#ifdef FUSER_HAVE_CUDA_FP8
#include <cuda_fp8.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// PyTorch's conversions (c10), the reference
//===----------------------------------------------------------------------===//

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// c10::detail::fp8e4m3fn_from_fp32_value.
uint8_t torchE4M3(float f) {
  const uint32_t fp8Max = UINT32_C(1087) << 20, denormMask = UINT32_C(141) << 23;
  uint32_t bits = toBits(f);
  const uint32_t sign = bits & UINT32_C(0x80000000);
  bits ^= sign;
  uint8_t result;
  if (bits >= fp8Max) {
    result = 0x7f;
  } else if (bits < (UINT32_C(121) << 23)) {
    // volatile: the addition must round here, in f32, as c10's does.
    volatile float sum = fromBits(bits) + fromBits(denormMask);
    result = static_cast<uint8_t>(toBits(sum) - denormMask);
  } else {
    uint8_t mantOdd = (bits >> 20) & 1;
    bits += (static_cast<uint32_t>(7 - 127) << 23) + 0x7FFFF;
    bits += mantOdd;
    result = static_cast<uint8_t>(bits >> 20);
  }
  return result | static_cast<uint8_t>(sign >> 24);
}

/// c10::detail::fp8e5m2_from_fp32_value.
uint8_t torchE5M2(float f) {
  const uint32_t fp32Inf = UINT32_C(255) << 23, fp8Max = UINT32_C(143) << 23,
                 denormMask = UINT32_C(134) << 23;
  uint32_t bits = toBits(f);
  const uint32_t sign = bits & UINT32_C(0x80000000);
  bits ^= sign;
  uint8_t result;
  if (bits >= fp8Max) {
    result = bits > fp32Inf ? 0x7f : 0x7c;
  } else if (bits < (UINT32_C(113) << 23)) {
    volatile float sum = fromBits(bits) + fromBits(denormMask);
    result = static_cast<uint8_t>(toBits(sum) - denormMask);
  } else {
    uint32_t mantOdd = (bits >> 21) & 1;
    bits += (static_cast<uint32_t>(15 - 127) << 23) + 0xFFFFF;
    bits += mantOdd;
    result = static_cast<uint8_t>(bits >> 21);
  }
  return result | static_cast<uint8_t>(sign >> 24);
}

float decodeReference(uint8_t c, bool e4m3);

/// The nearest code by definition, independent of any bit trick: the
/// finite codes' values in order, plus the step past the largest; the
/// magnitude goes to the nearer neighbour, a tie to the even code; past
/// the largest finite, overflow (NaN or infinity) or, with saturate, the
/// largest finite; NaN is 0x7f; the sign is kept.
uint8_t nearestCode(float f, bool e4m3, bool saturate) {
  static std::vector<double> table[2];
  std::vector<double> &v = table[e4m3];
  uint8_t top = e4m3 ? 0x7e : 0x7b;
  if (v.empty()) {
    for (int c = 0; c <= top; ++c)
      v.push_back(decodeReference(static_cast<uint8_t>(c), e4m3));
    v.push_back(2 * v[top] - v[top - 1]);
  }
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  if (std::isnan(f))
    return sign | 0x7f;
  double a = std::fabs(static_cast<double>(f));
  size_t hi = std::lower_bound(v.begin(), v.end(), a) - v.begin();
  uint8_t code;
  if (hi == 0)
    code = 0;
  else if (hi > top + 1u)
    code = top + 1; // beyond the step (infinity too)
  else {
    double mid = (v[hi - 1] + v[hi]) / 2; // exact: few significant bits
    code = static_cast<uint8_t>(a < mid ? hi - 1 : a > mid ? hi : ((hi - 1) % 2 ? hi : hi - 1));
  }
  if (code > top)
    code = saturate ? top : (e4m3 ? 0x7f : 0x7c);
  return sign | code;
}

/// The reference for one format and mode: the nearest code, which must
/// agree with PyTorch's algorithm (and saturate: the overflow, infinities
/// included, becomes the largest finite) on every input checked.
uint8_t torchE8M0(float f, bool saturate);

uint8_t reference(float f, int fmt, bool saturate) {
  if (fmt == 2)
    return torchE8M0(f, saturate);
  bool e4m3 = fmt == 0;
  uint8_t r = e4m3 ? torchE4M3(f) : torchE5M2(f);
  if (saturate && !std::isnan(f)) {
    uint8_t mag = r & 0x7f, sign = r & 0x80;
    if (e4m3 && mag == 0x7f)
      r = sign | 0x7e;
    if (!e4m3 && mag >= 0x7c)
      r = sign | 0x7b;
  }
  uint8_t n = nearestCode(f, e4m3, saturate);
  if (n != r) {
    std::printf("  REFERENCES DISAGREE on f32 %a: nearest 0x%02x, PyTorch 0x%02x\n",
                static_cast<double>(f), n, r);
    std::abort();
  }
  return r;
}

/// c10::detail::fp8e8m0fnu_from_fp32_value (the sign dropped; the exponent
/// rounded up past half a binade, ties up for normal numbers; NaN and
/// infinities 0xff), and with saturate: finite results past 2^127 and
/// infinities 0xfe.
uint8_t torchE8M0(float f, bool saturate) {
  uint32_t bits = toBits(f);
  uint32_t exponent = (bits >> 23) & 0xff;
  if (exponent == 0xff)
    return saturate && !std::isnan(f) ? 0xfe : 0xff;
  bool g = bits & 0x400000, r = bits & 0x200000, s = bits & 0x1fffff;
  bool lsb = exponent > 0;
  if (g && (r || s || lsb))
    ++exponent;
  if (saturate && exponent > 0xfe)
    exponent = 0xfe;
  return static_cast<uint8_t>(exponent);
}

/// The value of a code, from the format's definition.
float decodeReferenceE8M0(uint8_t c) {
  if (c == 0xff)
    return fromBits(0x7f800001u);
  return c == 0 ? fromBits(0x00400000u) : fromBits(static_cast<uint32_t>(c) << 23);
}

float decodeReference(uint8_t c, bool e4m3) {
  int mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (c & 0x7f) >> mb, m = c & ((1 << mb) - 1);
  float v;
  if (e4m3 && (c & 0x7f) == 0x7f)
    v = NAN;
  else if (!e4m3 && e == 31)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(float(m), 1 - bias - mb);
  else
    v = std::ldexp(float(m + (1 << mb)), e - bias - mb);
  return (c & 0x80) ? -v : v;
}

//===----------------------------------------------------------------------===//
// fuser's conversions, JIT-compiled
//===----------------------------------------------------------------------===//

template <typename In, typename Out> struct Kernel {
  std::unique_ptr<ExecutionEngine> engine;
  void *fn = nullptr;
  void run(const In *in, Out *out, int64_t n) const {
    StridedMemRefType<In, 1> a{const_cast<In *>(in), const_cast<In *>(in), 0, {n}, {1}};
    StridedMemRefType<Out, 1> b{out, out, 0, {n}, {1}};
    reinterpret_cast<void (*)(StridedMemRefType<In, 1> *, StridedMemRefType<Out, 1> *)>(fn)(
        &a, &b);
  }
};

class Jit {
public:
  Jit() {
    DialectRegistry registry;
    registry.insert<func::FuncDialect, arith::ArithDialect, memref::MemRefDialect,
                    scf::SCFDialect, vector::VectorDialect, LLVM::LLVMDialect,
                    NVVM::NVVMDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// f32 -> fp8 codes (`encode`) or fp8 codes -> f32, `width` lanes an
  /// iteration (1: scalar ops, 4: vector<4> ops). Codes are i8 in memory
  /// and bitcast to and from the fp8 type around the conversion. `form`:
  /// Software (emitTruncToFloat8), Paired (the saturating cast through the
  /// GPU's instruction, expanded), or Instruction: the bare instruction,
  /// expanded, on the pair (a = x, b = -x), its i16 stored (scalar only).
  enum Form { Software, Paired, Instruction };
  template <typename In, typename Out>
  bool compile(bool encode, int fmt, bool saturate, int width, Kernel<In, Out> &k,
               Form form = Software) {
    Location loc = UnknownLoc::get(&ctx);
    OpBuilder b(&ctx);
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    Type f32 = b.getF32Type(), i8 = b.getI8Type();
    Type fp8 = fmt == 0   ? Type(Float8E4M3FNType::get(&ctx))
               : fmt == 1 ? Type(Float8E5M2Type::get(&ctx))
                          : Type(Float8E8M0FNUType::get(&ctx));
    Type inElem = encode ? f32 : i8, outElem = encode ? i8 : f32;
    if (form == Instruction)
      outElem = b.getI16Type();
    auto dyn = [](Type e) { return MemRefType::get({ShapedType::kDynamic}, e); };
    auto func = func::FuncOp::create(b, loc, "kernel",
                                     b.getFunctionType({dyn(inElem), dyn(outElem)}, {}));
    func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value step = arith::ConstantIndexOp::create(b, loc, width);
    Value n = memref::DimOp::create(b, loc, entry->getArgument(1), 0);
    auto loop = scf::ForOp::create(b, loc, c0, n, step);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value iv = loop.getInductionVar();
    auto shaped = [&](Type e) -> Type {
      return width == 1 ? e : Type(VectorType::get({width}, e));
    };
    Value x = width == 1 ? memref::LoadOp::create(b, loc, entry->getArgument(0), ValueRange{iv})
                               .getResult()
                         : vector::LoadOp::create(b, loc, cast<VectorType>(shaped(inElem)),
                                                  entry->getArgument(0), ValueRange{iv})
                               .getResult();
    Value r;
    if (form == Instruction) {
      r = NVVM::ConvertF32x2ToF8x2Op::create(b, loc, b.getI16Type(), x,
                                             arith::NegFOp::create(b, loc, x),
                                             NVVM::FPRoundingMode::RN,
                                             NVVM::SaturationMode::SATFINITE, false, fp8);
    } else if (encode) {
      Value q = form == Paired ? fuser::emitSaturatingTruncToFloat8Pairs(b, loc, x, fp8)
                               : fuser::emitTruncToFloat8(b, loc, x, fp8, saturate);
      r = arith::BitcastOp::create(b, loc, shaped(i8), q);
    } else {
      Value q = arith::BitcastOp::create(b, loc, shaped(fp8), x);
      r = fuser::emitExtFromFloat8(b, loc, q);
    }
    if (width == 1)
      memref::StoreOp::create(b, loc, r, entry->getArgument(1), ValueRange{iv});
    else
      vector::StoreOp::create(b, loc, r, entry->getArgument(1), ValueRange{iv});
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
    if (failed(verify(*module)) || failed(fuser::expandFloat8PairConversions(*module))) {
      llvm::errs() << "verification failed\n";
      return false;
    }
    PassManager pm(&ctx);
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(createConvertVectorToLLVMPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
    pm.addPass(createArithToLLVMConversionPass());
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createConvertFuncToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(*module))) {
      llvm::errs() << "lowering failed\n";
      return false;
    }
    ExecutionEngineOptions opts;
    auto transformer = makeOptimizingTransformer(2, 0, nullptr);
    opts.transformer = transformer;
    auto engine = ExecutionEngine::create(*module, opts);
    if (!engine) {
      llvm::errs() << "JIT failed: " << llvm::toString(engine.takeError()) << "\n";
      return false;
    }
    auto sym = (*engine)->lookup("_mlir_ciface_kernel");
    if (!sym) {
      llvm::errs() << "lookup failed: " << llvm::toString(sym.takeError()) << "\n";
      return false;
    }
    k.fn = *sym;
    k.engine = std::move(*engine);
    return true;
  }

private:
  MLIRContext ctx;
};

const char *formatName(int fmt) {
  return fmt == 0 ? "f8E4M3FN" : fmt == 1 ? "f8E5M2" : "f8E8M0FNU";
}

/// Runs `k` on the f32 bit patterns 0, stride, 2 stride, ... (wrapping at
/// 2^32, `count` of them), a chunk at a time, and hands each input and its
/// output to `check`. Whole vectors: the vector<4> form has no remainder
/// loop; the buffers hold a chunk, so the lanes past the count are in
/// bounds (and not checked).
template <typename Out, typename Check>
void forEachPattern(const Kernel<float, Out> &k, uint64_t stride, uint64_t count,
                    Check check) {
  const uint64_t chunk = 1 << 22;
  std::vector<float> in(chunk);
  std::vector<Out> out(chunk);
  uint64_t done = 0, pattern = 0;
  while (done < count) {
    uint64_t n = std::min(chunk, count - done);
    for (uint64_t i = 0; i < n; ++i, pattern += stride)
      in[i] = fromBits(static_cast<uint32_t>(pattern));
    k.run(in.data(), out.data(), static_cast<int64_t>((n + 3) & ~uint64_t(3)));
    for (uint64_t i = 0; i < n; ++i)
      check(in[i], out[i]);
    done += n;
  }
}

/// Encodes the sampled f32 patterns (forEachPattern) with fuser and with
/// the reference; returns the mismatches, printing the first few.
uint64_t checkEncode(const Kernel<float, int8_t> &k, int fmt, bool saturate,
                     uint64_t stride, uint64_t count, const char *form) {
  uint64_t bad = 0;
  forEachPattern(k, stride, count, [&](float x, int8_t code) {
    uint8_t got = static_cast<uint8_t>(code), want = reference(x, fmt, saturate);
    if (got != want && bad++ < 5)
      std::printf("  MISMATCH %s%s (%s): f32 0x%08x (%a): fuser 0x%02x, PyTorch 0x%02x\n",
                  formatName(fmt), saturate ? " saturate" : "", form, toBits(x),
                  static_cast<double>(x), got, want);
  });
  return bad;
}

/// The inputs where rounding decides: every finite code's value, every
/// midpoint between neighbouring codes (the ties, both formats) and the f32
/// on either side of each, past the largest finite, both signs.
std::vector<float> roundingProbes() {
  std::vector<float> xs;
  for (bool e4m3 : {true, false}) {
    std::vector<float> pos;
    for (int c = 0; c < 0x80; ++c) {
      float v = decodeReference(static_cast<uint8_t>(c), e4m3);
      if (std::isfinite(v))
        pos.push_back(v);
    }
    pos.push_back(2 * pos.back() - pos[pos.size() - 2]); // the next step
    for (size_t i = 0; i < pos.size(); ++i) {
      xs.push_back(pos[i]);
      if (i + 1 < pos.size()) {
        float mid = (pos[i] + pos[i + 1]) / 2; // exact: few mantissa bits
        xs.push_back(mid);
        xs.push_back(std::nextafter(mid, INFINITY));
        xs.push_back(std::nextafter(mid, 0.0f));
      }
    }
  }
  // e8m0: every power of two, the half-binade ties and their neighbours
  for (int e = -149; e <= 127; ++e) {
    float p = std::ldexp(1.0f, e), t = 1.5f * p;
    xs.insert(xs.end(), {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY), t,
                         std::nextafter(t, 0.0f), std::nextafter(t, INFINITY)});
  }
  xs.insert(xs.end(), {INFINITY, NAN, std::numeric_limits<float>::max()});
  size_t n = xs.size();
  for (size_t i = 0; i < n; ++i)
    xs.push_back(-xs[i]);
  while (xs.size() % 4)
    xs.push_back(0.0f);
  return xs;
}

uint64_t checkList(const Kernel<float, int8_t> &k, int fmt, bool saturate,
                   const std::vector<float> &xs, const char *form) {
  std::vector<int8_t> out(xs.size());
  k.run(xs.data(), out.data(), static_cast<int64_t>(xs.size()));
  uint64_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    uint8_t got = static_cast<uint8_t>(out[i]), want = reference(xs[i], fmt, saturate);
    if (got != want && bad++ < 5)
      std::printf("  MISMATCH %s%s (%s): f32 %a: fuser 0x%02x, PyTorch 0x%02x\n",
                  formatName(fmt), saturate ? " saturate" : "", form,
                  static_cast<double>(xs[i]), got, want);
  }
  return bad;
}

/// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 on one input, as fuser models it:
/// the saturating conversion, but every NaN 0x7f (the sign dropped).
uint8_t instructionModel(float f, int fmt) {
  return std::isnan(f) ? 0x7f : reference(f, fmt, true);
}

/// The bare instruction's expansion on the pairs (x, -x) of the f32 bit
/// patterns start, start + stride, ...: against fuser's model of it and,
/// with the CUDA toolkit, NVIDIA's (cuda_fp8.h's host conversion, which
/// cuda_fp8.h itself replaces with this instruction on sm_89 and later).
uint64_t checkInstruction(const Kernel<float, int16_t> &k, int fmt, uint64_t stride,
                          uint64_t count) {
  uint64_t bad = 0;
  forEachPattern(k, stride, count, [&](float x, int16_t pair) {
    uint16_t got = static_cast<uint16_t>(pair);
    uint16_t want = static_cast<uint16_t>(instructionModel(x, fmt) << 8 |
                                          instructionModel(-x, fmt));
#ifdef FUSER_HAVE_CUDA_FP8
    __nv_fp8_interpretation_t kind = fmt == 0 ? __NV_E4M3 : __NV_E5M2;
    uint16_t nvidia =
        static_cast<uint16_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, kind) << 8 |
                              __nv_cvt_float_to_fp8(-x, __NV_SATFINITE, kind));
    if (nvidia != want && bad++ < 5)
      std::printf("  MODEL DISAGREES %s: f32 0x%08x: fuser's model 0x%04x, NVIDIA's 0x%04x\n",
                  formatName(fmt), toBits(x), want, nvidia);
#endif
    if (got != want && bad++ < 5)
      std::printf("  MISMATCH %s instruction: f32 0x%08x: expansion 0x%04x, model 0x%04x\n",
                  formatName(fmt), toBits(x), got, want);
  });
  return bad;
}

} // namespace

int main(int argc, char **argv) {
  bool exhaustive = argc > 1 && std::string(argv[1]) == "--exhaustive";
  if (argc > 2 || (argc == 2 && !exhaustive)) {
    std::fprintf(stderr, "usage: fuser-fp8-conversions [--exhaustive]\n");
    return 2;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  Jit jit;
  uint64_t failures = 0;
  // Every 97th pattern: 97 is odd, so the walk wraps through 2^32 / 97
  // patterns spread over every exponent, sign and mantissa residue.
  uint64_t stride = exhaustive ? 1 : 97;
  uint64_t count = exhaustive ? (uint64_t(1) << 32) : (uint64_t(1) << 32) / 97;
  for (int fmt : {0, 1, 2}) {
    bool e4m3 = fmt == 0;
    for (bool saturate : {false, true}) {
      for (int width : {1, 4}) {
        Kernel<float, int8_t> k;
        if (!jit.compile(/*encode=*/true, fmt, saturate, width, k))
          return 1;
        const char *form = width == 1 ? "scalar" : "vector<4>";
        // The vector form over the sample only: it runs the same selects.
        uint64_t n = width == 1 ? count : std::min<uint64_t>(count, (uint64_t(1) << 32) / 97);
        uint64_t s = width == 1 ? stride : 97;
        uint64_t bad = checkEncode(k, fmt, saturate, s, n, form);
        std::vector<float> probes = roundingProbes();
        bad += checkList(k, fmt, saturate, probes, form);
        std::printf("f32 -> %s%s (%s): %llu inputs and %zu rounding probes, %llu mismatches\n",
                    formatName(fmt), saturate ? " saturate" : "", form,
                    static_cast<unsigned long long>(n), probes.size(),
                    static_cast<unsigned long long>(bad));
        failures += bad;
      }
    }
    // The saturating cast through the GPU's paired conversion, expanded:
    // the same bits (vector<4> pairs lanes 0-1 and 2-3).
    for (int width : {1, 4}) {
      if (fmt == 2)
        break;
      Kernel<float, int8_t> k;
      if (!jit.compile(/*encode=*/true, fmt, true, width, k, Jit::Paired))
        return 1;
      const char *form = width == 1 ? "paired, scalar" : "paired, vector<4>";
      uint64_t n = std::min<uint64_t>(count, (uint64_t(1) << 32) / 97);
      uint64_t bad = checkEncode(k, fmt, true, 97, n, form);
      std::vector<float> probes = roundingProbes();
      bad += checkList(k, fmt, true, probes, form);
      std::printf("f32 -> %s saturate (%s): %llu inputs and %zu rounding probes, "
                  "%llu mismatches\n",
                  formatName(fmt), form, static_cast<unsigned long long>(n), probes.size(),
                  static_cast<unsigned long long>(bad));
      failures += bad;
    }
    if (fmt != 2) {
      Kernel<float, int16_t> k;
      if (!jit.compile(/*encode=*/true, fmt, true, 1, k, Jit::Instruction))
        return 1;
      uint64_t bad = checkInstruction(k, fmt, stride, count);
#ifdef FUSER_HAVE_CUDA_FP8
      const char *against = "fuser's model and NVIDIA's (cuda_fp8.h)";
#else
      const char *against = "fuser's model (no CUDA toolkit: NVIDIA's not checked)";
#endif
      std::printf("cvt.rn.satfinite.%sx2.f32 expanded: %llu pairs against %s, %llu "
                  "mismatches\n",
                  fmt == 0 ? "e4m3" : "e5m2", static_cast<unsigned long long>(count), against,
                  static_cast<unsigned long long>(bad));
      failures += bad;
    }
    for (int width : {1, 4}) {
      Kernel<int8_t, float> k;
      if (!jit.compile(/*encode=*/false, fmt, false, width, k))
        return 1;
      int8_t codes[256];
      float out[256];
      for (int c = 0; c < 256; ++c)
        codes[c] = static_cast<int8_t>(c);
      k.run(codes, out, 256);
      uint64_t bad = 0;
      for (int c = 0; c < 256; ++c) {
        float want = fmt == 2 ? decodeReferenceE8M0(static_cast<uint8_t>(c))
                              : decodeReference(static_cast<uint8_t>(c), e4m3);
        // NaN: fp8's keep their sign; e8m0's is PyTorch's bits exactly
        bool same = std::isnan(want) && fmt != 2
                        ? std::isnan(out[c]) && std::signbit(out[c]) == (c >= 128)
                        : toBits(out[c]) == toBits(want);
        if (!same && bad++ < 5)
          std::printf("  MISMATCH %s -> f32: code 0x%02x: fuser %a, want %a\n",
                      formatName(fmt), c, static_cast<double>(out[c]),
                      static_cast<double>(want));
      }
      std::printf("%s -> f32 (%s): 256 codes, %llu mismatches\n", formatName(fmt),
                  width == 1 ? "scalar" : "vector<4>", static_cast<unsigned long long>(bad));
      failures += bad;
    }
  }
  std::printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
