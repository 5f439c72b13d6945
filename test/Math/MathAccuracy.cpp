//===- MathAccuracy.cpp - Accuracy of fuser's math expansions -------------===//
//
// For each function and type, builds a func.func that applies the expansion
// to a memref of inputs (scalar and vector<4x..> forms), lowers it with
// upstream passes to the LLVM dialect, JIT-compiles it with
// mlir::ExecutionEngine and compares the results with a reference: glibc's
// double functions for f32 and its long double (64-bit mantissa) functions
// for f64.  Prints the max ulp error per function and type; fails when it is
// above the bound, when a special value (NaN, signed zero, infinity) is
// wrong, when scalar and vector forms disagree, or when the expansion emits
// an op outside the allowed set.  Both accuracy tiers are checked: Precise
// (f32 and f64) and Fast (f32; f64 has no fast tier), each within 2 ulp.
//
//   fuser-math-accuracy                  the ctest run (fixed samples: per
//                                        input class 10^6 for f32, 4 10^5
//                                        for f64), both tiers
//   fuser-math-accuracy --samples 20     20x the samples
//   fuser-math-accuracy --exhaustive     every f32 input of the unary functions
//   fuser-math-accuracy --math fast      one tier only (fast or precise)
//   fuser-math-accuracy --only sin,cos --type f32
//
//===----------------------------------------------------------------------===//

#include "MathFunctions.h"

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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace mlir;
using fuser_test::kMathFunctions;
using fuser_test::MathFn;

namespace {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

template <typename T> struct Traits;
template <> struct Traits<float> {
  using R = double; // reference type
  using Bits = uint32_t;
  static constexpr int mant = 23, emin = -126, emax = 127;
  static constexpr const char *name = "f32";
  static Type type(MLIRContext *c) { return Float32Type::get(c); }
};
template <> struct Traits<double> {
  using R = long double;
  using Bits = uint64_t;
  static constexpr int mant = 52, emin = -1022, emax = 1023;
  static constexpr const char *name = "f64";
  static Type type(MLIRContext *c) { return Float64Type::get(c); }
};

template <typename T> T fromBits(typename Traits<T>::Bits b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
template <typename T> typename Traits<T>::Bits toBits(T v) {
  typename Traits<T>::Bits b;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

template <typename R> using RefFn = R (*)(R, R);

template <typename R> RefFn<R> referenceFor(const std::string &n) {
  // clang-format off
  if (n == "exp") return [](R a, R) -> R { return std::exp(a); };
  if (n == "exp2") return [](R a, R) -> R { return std::exp2(a); };
  if (n == "expm1") return [](R a, R) -> R { return std::expm1(a); };
  if (n == "log") return [](R a, R) -> R { return std::log(a); };
  if (n == "log2") return [](R a, R) -> R { return std::log2(a); };
  if (n == "log1p") return [](R a, R) -> R { return std::log1p(a); };
  if (n == "sin") return [](R a, R) -> R { return std::sin(a); };
  if (n == "cos") return [](R a, R) -> R { return std::cos(a); };
  if (n == "tanh") return [](R a, R) -> R { return std::tanh(a); };
  if (n == "erf") return [](R a, R) -> R { return std::erf(a); };
  if (n == "sigmoid") return [](R a, R) -> R { return R(1) / (R(1) + std::exp(-a)); };
  if (n == "atan2") return [](R a, R b) -> R { return std::atan2(a, b); };
  if (n == "pow") return [](R a, R b) -> R { return std::pow(a, b); };
  if (n == "log10") return [](R a, R) -> R { return std::log10(a); };
  if (n == "tan") return [](R a, R) -> R { return std::tan(a); };
  if (n == "asin") return [](R a, R) -> R { return std::asin(a); };
  if (n == "acos") return [](R a, R) -> R { return std::acos(a); };
  if (n == "atan") return [](R a, R) -> R { return std::atan(a); };
  if (n == "sinh") return [](R a, R) -> R { return std::sinh(a); };
  if (n == "cosh") return [](R a, R) -> R { return std::cosh(a); };
  if (n == "asinh") return [](R a, R) -> R { return std::asinh(a); };
  if (n == "acosh") return [](R a, R) -> R { return std::acosh(a); };
  if (n == "atanh") return [](R a, R) -> R { return std::atanh(a); };
  // clang-format on
  return nullptr;
}

enum class Verdict { Ok, SpecialWrong };

/// Error of `got` against the reference in ulps of the result type (ulp of
/// the reference's binade, subnormal spacing below the normal range); an
/// overflowed result counts as 2^(emax+1).  Exact zeros and infinities of
/// the reference must be matched bit for bit (sign included), NaN by NaN.
template <typename T>
double ulpError(T got, typename Traits<T>::R ref, Verdict &v) {
  using R = typename Traits<T>::R;
  using Tr = Traits<T>;
  v = Verdict::Ok;
  if (std::isnan(ref) || std::isnan(got)) {
    if (std::isnan(ref) != std::isnan(got))
      v = Verdict::SpecialWrong;
    return 0;
  }
  if (std::isinf(ref) || ref == 0) {
    if (!(got == ref && std::signbit(got) == std::signbit(ref)))
      v = Verdict::SpecialWrong;
    return 0;
  }
  T refT = static_cast<T>(ref);
  if (std::isinf(refT) && got == refT)
    return 0;
  R g = got;
  if (std::isinf(got))
    g = std::copysign(std::ldexp(R(1), Tr::emax + 1), R(got));
  R a = std::fabs(ref);
  int e = 0;
  (void)std::frexp(a, &e); // a in [2^(e-1), 2^e)
  int ue = std::max(e - 1, Tr::emin) - Tr::mant;
  return static_cast<double>(std::fabs(g - ref) / std::ldexp(R(1), ue));
}

//===----------------------------------------------------------------------===//
// JIT
//===----------------------------------------------------------------------===//

struct OpCheck {
  int ops = 0;
  std::set<std::string> disallowed;
};

/// What an expansion may emit: arith ops, llvm.intr.fma and llvm.intr.trunc;
/// the Fast tier's sin and cos (and tan, made of them) also their scf.if
/// (with the vector.reduction of its condition for vectors).
bool allowedOp(Operation *op, bool branchAllowed) {
  StringRef d = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (d == "arith")
    return true;
  // The Fast tier's sin and cos: the branch to the rare path, which calls
  // the helper function lane by lane (its body is checked on its own).
  if (branchAllowed && isa<scf::IfOp, scf::YieldOp, vector::ReductionOp, func::CallOp,
                           vector::ExtractOp, vector::FromElementsOp>(op))
    return true;
  return isa<LLVM::FMAOp, LLVM::FTruncOp>(op);
}

bool isFastTrig(const MathFn &fn) {
  std::string n = fn.name;
  return n == "sin" || n == "cos" || n == "tan";
}

template <typename T> struct Kernel {
  std::unique_ptr<ExecutionEngine> engine;
  void *fn = nullptr;
  int arity = 1;

  void run(const T *a, const T *b, T *out, int64_t n) const {
    auto desc = [n](const T *p) {
      StridedMemRefType<T, 1> d;
      d.basePtr = const_cast<T *>(p);
      d.data = const_cast<T *>(p);
      d.offset = 0;
      d.sizes[0] = n;
      d.strides[0] = 1;
      return d;
    };
    auto da = desc(a), dout = desc(out);
    if (arity == 1) {
      reinterpret_cast<void (*)(StridedMemRefType<T, 1> *,
                                StridedMemRefType<T, 1> *)>(fn)(&da, &dout);
    } else {
      auto db = desc(b);
      reinterpret_cast<void (*)(
          StridedMemRefType<T, 1> *, StridedMemRefType<T, 1> *,
          StridedMemRefType<T, 1> *)>(fn)(&da, &db, &dout);
    }
  }
};

class Jit {
public:
  Jit() {
    DialectRegistry registry;
    registry.insert<func::FuncDialect, arith::ArithDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect, LLVM::LLVMDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Compiles `fn` over memrefs of `T`, `width` elements per iteration
  /// (1: scalar ops; 4: vector<4xT> ops).
  template <typename T>
  bool compile(const MathFn &fn, int width, fuser::MathAccuracy accuracy,
               Kernel<T> &k, OpCheck &check) {
    Location loc = UnknownLoc::get(&ctx);
    OpBuilder b(&ctx);
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    Type elem = Traits<T>::type(&ctx);
    auto memTy = MemRefType::get({ShapedType::kDynamic}, elem);
    SmallVector<Type> args(fn.arity + 1, memTy);
    auto func = func::FuncOp::create(b, loc, "kernel",
                                     b.getFunctionType(args, {}));
    func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value out = entry->getArgument(fn.arity);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value step = arith::ConstantIndexOp::create(b, loc, width);
    Value n = memref::DimOp::create(b, loc, out, 0);
    auto loop = scf::ForOp::create(b, loc, c0, n, step);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value iv = loop.getInductionVar();
    auto vecTy = VectorType::get({width}, elem);
    auto load = [&](Value mem) -> Value {
      if (width == 1)
        return memref::LoadOp::create(b, loc, mem, ValueRange{iv});
      return vector::LoadOp::create(b, loc, vecTy, mem, ValueRange{iv});
    };
    Value x = load(entry->getArgument(0));
    Value y = fn.arity == 2 ? load(entry->getArgument(1)) : Value();
    Operation *before = b.getInsertionBlock()->empty()
                            ? nullptr
                            : &*std::prev(b.getInsertionPoint());
    fuser::MathBuilder mb(b, loc, accuracy);
    Value r = fn.emit(mb, x, y);
    // Check what the expansion emitted (nested ops included).
    bool branch = accuracy == fuser::MathAccuracy::Fast &&
                  std::is_same_v<T, float> && isFastTrig(fn);
    for (Operation *op = before ? before->getNextNode()
                                : &b.getInsertionBlock()->front();
         op && op != loop.getBody()->getTerminator(); op = op->getNextNode()) {
      op->walk([&](Operation *inner) {
        ++check.ops;
        if (!allowedOp(inner, branch))
          check.disallowed.insert(inner->getName().getStringRef().str());
      });
    }
    // The helper functions the expansion made (the rare path): straight
    // arithmetic only.
    for (auto helper : module->getOps<func::FuncOp>()) {
      if (!helper.getSymName().starts_with("__fuser_"))
        continue;
      helper.walk([&](Operation *inner) {
        if (!isa<func::FuncOp, func::ReturnOp>(inner) && !allowedOp(inner, false))
          check.disallowed.insert(inner->getName().getStringRef().str());
      });
    }
    if (width == 1)
      memref::StoreOp::create(b, loc, r, out, ValueRange{iv});
    else
      vector::StoreOp::create(b, loc, r, out, ValueRange{iv});
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
    if (failed(verify(*module))) {
      llvm::errs() << "verification failed for " << fn.name << "\n";
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
      llvm::errs() << "lowering failed for " << fn.name << "\n";
      return false;
    }
    ExecutionEngineOptions opts;
    auto transformer = makeOptimizingTransformer(2, 0, nullptr);
    opts.transformer = transformer;
    opts.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
    auto engine = ExecutionEngine::create(*module, opts);
    if (!engine) {
      llvm::errs() << "JIT failed for " << fn.name << ": "
                   << llvm::toString(engine.takeError()) << "\n";
      return false;
    }
    auto sym = (*engine)->lookup("_mlir_ciface_kernel");
    if (!sym) {
      llvm::errs() << "lookup failed: " << llvm::toString(sym.takeError())
                   << "\n";
      return false;
    }
    k.fn = *sym;
    k.arity = fn.arity;
    k.engine = std::move(*engine);
    return true;
  }

private:
  MLIRContext ctx;
};

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return (next() >> 11) * 0x1p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
};

template <typename T> T randomBits(Rng &r) {
  return fromBits<T>(static_cast<typename Traits<T>::Bits>(r.next()));
}

/// |v| log-uniform in [2^lo, 2^hi], random sign unless positive.
template <typename T> T logUniform(Rng &r, double lo, double hi, bool pos) {
  using R = typename Traits<T>::R;
  T v = static_cast<T>(std::exp2(R(r.uniform(lo, hi))));
  return pos || (r.next() & 1) ? v : -v;
}

template <typename T> std::vector<T> specialValues() {
  using L = std::numeric_limits<T>;
  std::vector<T> base = {0,
                         L::denorm_min(),
                         L::denorm_min() * 3,
                         L::min() - L::denorm_min(),
                         L::min(),
                         L::epsilon(),
                         T(1e-10),
                         T(0.1),
                         T(0.5),
                         T(0.75),
                         T(0.875),
                         T(1) - L::epsilon() / 2,
                         T(1),
                         T(1) + L::epsilon(),
                         T(1.5),
                         T(2),
                         T(3),
                         T(2.5),
                         T(M_PI / 4),
                         T(M_PI / 2),
                         T(M_PI),
                         T(10),
                         T(20),
                         T(88.72),
                         T(89),
                         T(103.9),
                         T(709.78),
                         T(745.2),
                         T(1e10),
                         T(1e30),
                         L::max() / 2,
                         L::max(),
                         L::infinity(),
                         L::quiet_NaN()};
  std::vector<T> out;
  for (T v : base) {
    out.push_back(v);
    out.push_back(-v);
  }
  return out;
}

template <typename T>
void addUniform(std::vector<T> &xs, Rng &r, size_t n, double lo, double hi) {
  for (size_t i = 0; i < n; ++i)
    xs.push_back(static_cast<T>(r.uniform(lo, hi)));
}

/// Inputs of a unary function: specials, random bit patterns, and ranges
/// where the function is hard (thresholds, cancellation, reduction).
template <typename T>
std::vector<T> unaryInputs(const std::string &fn, size_t n) {
  using R = typename Traits<T>::R;
  constexpr bool d = std::is_same_v<T, double>;
  Rng r{0x5eed0000 + std::hash<std::string>()(fn)};
  std::vector<T> xs = specialValues<T>();
  for (size_t i = 0; i < n; ++i)
    xs.push_back(randomBits<T>(r));
  auto uni = [&](double lo, double hi, double frac = 1.0) {
    addUniform(xs, r, static_cast<size_t>(n * frac), lo, hi);
  };
  auto logu = [&](double lo, double hi, bool pos, double frac = 1.0) {
    for (size_t i = 0; i < static_cast<size_t>(n * frac); ++i)
      xs.push_back(logUniform<T>(r, lo, hi, pos));
  };
  double expHi = d ? 709.79 : 88.73, expLo = d ? -745.2 : -103.98;
  double subLo = d ? -708.4 : -87.34;
  if (fn == "exp" || fn == "sigmoid") {
    double s = fn == "exp" ? 1 : -1;
    uni(expLo, expHi);
    uni(expHi - 0.5, expHi + 0.5, 0.2);
    uni(s * (expLo - 0.5), s * (subLo + 0.5), 0.5);
    uni(-1, 1, 0.2);
    logu(-80, -1, false, 0.2);
  } else if (fn == "exp2") {
    double hi = d ? 1024.5 : 128.5, lo = d ? -1075.5 : -150.5;
    uni(lo, hi);
    uni(-1, 1, 0.2);
    for (size_t i = 0; i < n / 5; ++i) // near integers
      xs.push_back(static_cast<T>(std::round(r.uniform(lo, hi)) +
                                  r.uniform(-1e-6, 1e-6)));
  } else if (fn == "expm1") {
    uni(-1, 1);
    logu(-60, -1, false, 0.5);
    uni(-0.7, 0.7, 0.5);
    uni(d ? -40 : -20, expHi, 0.5);
  } else if (fn == "log" || fn == "log2") {
    uni(0.5, 2);
    uni(1 - 1.0 / 1024, 1 + 1.0 / 1024, 0.5);
    logu(d ? -1074 : -149, d ? 1024 : 128, true, 0.5);
  } else if (fn == "log1p") {
    uni(-1, 1);
    uni(-1, -0.99, 0.2);
    logu(-60, -1, false, 0.5);
    logu(-1, d ? 1024 : 128, true, 0.2);
  } else if (fn == "sin" || fn == "cos") {
    uni(-10, 10);
    uni(-1e5, 1e5, 0.5);
    logu(0, d ? 1024 : 128, false, 0.5);
    // Near multiples of pi/2 (the cancellation of the reduction).
    for (size_t i = 0; i < n / 4; ++i) {
      R k = std::floor(std::exp2(R(r.uniform(0, d ? 40 : 22))));
      T x = static_cast<T>(k * (R)1.5707963267948966192313216916397514L);
      for (int j = -2; j <= 2; ++j) {
        T v = x;
        for (int s = 0; s < std::abs(j); ++s)
          v = std::nextafter(v, j < 0 ? T(0) : std::numeric_limits<T>::max());
        xs.push_back(v);
      }
    }
    if (d) { // the worst case of double (Muller et al.)
      xs.push_back(std::ldexp(6381956970095103.0, 797));
    } else {
      xs.push_back(std::ldexp(16367173.0f, 72));
    }
  } else if (fn == "tanh") {
    uni(d ? -25 : -12, d ? 25 : 12);
    uni(-1, 1, 0.5);
    logu(-60, -1, false, 0.3);
  } else if (fn == "log10") {
    uni(0.5, 2);
    logu(d ? -1074 : -149, d ? 1024 : 128, true, 0.5);
    for (int k = -30; k <= 30; ++k) // powers of ten come out exact
      xs.push_back(static_cast<T>(std::pow(R(10), R(k))));
  } else if (fn == "tan") {
    uni(-10, 10);
    uni(-1e5, 1e5, 0.5);
    for (size_t i = 0; i < n / 4; ++i) { // next to the poles
      R k = std::floor(r.uniform(0, d ? 1e6 : 1e4)) + 0.5;
      T x = static_cast<T>(k * (R)3.1415926535897932384626433832795029L);
      xs.push_back(x);
      xs.push_back(std::nextafter(x, T(0)));
    }
  } else if (fn == "asin" || fn == "acos" || fn == "atanh") {
    uni(-1, 1);
    uni(0.99, 1, 0.3);
    uni(-1, -0.99, 0.3);
    logu(-60, -1, false, 0.3);
  } else if (fn == "atan") {
    uni(-10, 10);
    logu(d ? -1074 : -149, d ? 1024 : 128, false, 0.5);
  } else if (fn == "sinh" || fn == "cosh") {
    uni(-1, 1);
    uni(expLo / 1.2, expHi + 0.7);
    logu(-60, -1, false, 0.3);
    uni(d ? 23 : 11, d ? 25 : 13, 0.3); // the switch to e^a / 2
  } else if (fn == "asinh" || fn == "acosh") {
    uni(fn == "acosh" ? 1 : -10, 10);
    uni(1, 1.01, 0.3);
    logu(-60, d ? 1024 : 128, fn == "acosh", 0.5);
    uni(d ? 0x1p27 : 0x1p11, d ? 0x1p29 : 0x1p13, 0.3); // the switch to log(2a)
  } else if (fn == "erf") {
    uni(-6.5, 6.5);
    uni(0.8, 0.95, 0.3);
    uni(-0.95, -0.8, 0.3);
    logu(-60, -1, false, 0.3);
  }
  while (xs.size() % 4)
    xs.push_back(T(0.25));
  return xs;
}

template <typename T>
void binaryInputs(const std::string &fn, size_t n, std::vector<T> &xs,
                  std::vector<T> &ys) {
  using R = typename Traits<T>::R;
  constexpr bool d = std::is_same_v<T, double>;
  Rng r{0xb1a5 + std::hash<std::string>()(fn)};
  std::vector<T> sp = specialValues<T>();
  for (T a : sp)
    for (T b : sp) {
      xs.push_back(a);
      ys.push_back(b);
    }
  for (size_t i = 0; i < n; ++i) {
    xs.push_back(randomBits<T>(r));
    ys.push_back(randomBits<T>(r));
  }
  int e0 = d ? -1074 : -149, e1 = d ? 1024 : 128;
  if (fn == "atan2") { // (y, x)
    for (size_t i = 0; i < n; ++i) {
      xs.push_back(static_cast<T>(r.uniform(-10, 10)));
      ys.push_back(static_cast<T>(r.uniform(-10, 10)));
    }
    for (size_t i = 0; i < n; ++i) {
      xs.push_back(logUniform<T>(r, e0, e1, false));
      ys.push_back(logUniform<T>(r, e0, e1, false));
    }
    for (size_t i = 0; i < n; ++i) { // ratios at the interval breaks
      static const double ratios[] = {7.0 / 16, 11.0 / 16, 1.0, 16.0 / 11,
                                      16.0 / 7};
      T x = logUniform<T>(r, -20, 20, false);
      double q = ratios[r.next() % 5] * (1 + r.uniform(-1e-6, 1e-6));
      xs.push_back(static_cast<T>(x * q));
      ys.push_back(x);
    }
  } else { // pow (x, y)
    double tLo = d ? -745.5 : -104, tHi = d ? 710 : 89;
    for (size_t i = 0; i < n; ++i) { // results over the whole range
      T x = logUniform<T>(r, e0, e1, true);
      R t = r.uniform(tLo, tHi);
      R lx = std::log(R(x));
      xs.push_back(x);
      ys.push_back(lx == 0 ? T(1) : static_cast<T>(t / lx));
    }
    for (size_t i = 0; i < n; ++i) {
      xs.push_back(static_cast<T>(r.uniform(0, 4)));
      ys.push_back(static_cast<T>(r.uniform(-40, 40)));
    }
    for (size_t i = 0; i < n / 2; ++i) { // negative bases, integer exponents
      xs.push_back(static_cast<T>(r.uniform(-12, 0)));
      ys.push_back(static_cast<T>(std::round(r.uniform(-60, 60))));
    }
    for (size_t i = 0; i < n / 2; ++i) { // x near 1, huge y
      xs.push_back(static_cast<T>(1 + r.uniform(-1, 1) * (d ? 0x1p-30 : 0x1p-12)));
      ys.push_back(logUniform<T>(r, 10, d ? 40 : 20, false));
    }
    for (int b = 2; b <= 10; ++b) // exact cases
      for (int e = -20; e <= 20; ++e) {
        xs.push_back(T(b));
        ys.push_back(T(e));
        xs.push_back(T(-b));
        ys.push_back(T(e));
      }
  }
  while (xs.size() % 4) {
    xs.push_back(T(0.5));
    ys.push_back(T(0.5));
  }
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

struct Stats {
  double maxUlp = 0;
  long double worstX = 0, worstY = 0;
  uint64_t count = 0, specialWrong = 0, vecMismatch = 0;
  std::vector<std::string> notes;
};

template <typename T>
void accumulate(Stats &s, const std::string &fn, RefFn<typename Traits<T>::R> ref,
                const T *x, const T *y, const T *got, size_t n) {
  using R = typename Traits<T>::R;
  for (size_t i = 0; i < n; ++i) {
    R rv = ref(R(x[i]), y ? R(y[i]) : R(0));
    Verdict v;
    double err = ulpError<T>(got[i], rv, v);
    // A NaN result is the first NaN operand, bit for bit, or else the
    // canonical quiet NaN (so that CPU and GPU agree on the bits).
    if (v == Verdict::Ok && std::isnan(got[i])) {
      T want = std::isnan(x[i])              ? x[i]
               : y && std::isnan(y[i])       ? y[i]
                                             : std::numeric_limits<T>::quiet_NaN();
      if (toBits(got[i]) != toBits(want))
        v = Verdict::SpecialWrong;
    }
    ++s.count;
    if (v == Verdict::SpecialWrong) {
      if (++s.specialWrong <= 5) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s(%.17Lg%s%.17Lg) = %.17Lg, want %.17Lg",
                      fn.c_str(), (long double)x[i], y ? ", " : "",
                      y ? (long double)y[i] : 0.0L, (long double)got[i],
                      (long double)rv);
        s.notes.push_back(buf);
      }
      continue;
    }
    if (err > s.maxUlp) {
      s.maxUlp = err;
      s.worstX = x[i];
      s.worstY = y ? y[i] : 0;
    }
  }
}

struct Options {
  double samples = 1;
  bool exhaustive = false;
  std::set<std::string> only;
  std::set<std::string> types = {"f32", "f64"};
  double bound = 2.0;
  unsigned threads = 2;
  std::vector<fuser::MathAccuracy> tiers = {fuser::MathAccuracy::Precise,
                                            fuser::MathAccuracy::Fast};
};

template <typename T>
bool runFunction(Jit &jit, const MathFn &fn, fuser::MathAccuracy tier,
                 const Options &o) {
  using R = typename Traits<T>::R;
  std::string name = fn.name;
  const char *tn = Traits<T>::name;
  const char *tierName = fuser::stringifyMathAccuracy(tier);
  Kernel<T> scalar, vec;
  OpCheck sc, vc;
  auto t0 = std::chrono::steady_clock::now();
  if (!jit.compile<T>(fn, 1, tier, scalar, sc) ||
      !jit.compile<T>(fn, 4, tier, vec, vc))
    return false;
  double compileS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  bool ok = true;
  if (!sc.disallowed.empty()) {
    ok = false;
    for (auto &op : sc.disallowed)
      std::printf("  %s %s %s: disallowed op %s\n", name.c_str(), tn,
                  tierName, op.c_str());
  }
  RefFn<R> ref = referenceFor<R>(name);
  Stats st;
  auto t1 = std::chrono::steady_clock::now();
  if (o.exhaustive && fn.arity == 1 && std::is_same_v<T, float>) {
    // Every f32 bit pattern, in chunks, across threads.
    const uint64_t total = 1ULL << 32, chunk = 1ULL << 22;
    std::atomic<uint64_t> next{0};
    std::vector<Stats> part(o.threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < o.threads; ++t)
      pool.emplace_back([&, t] {
        std::vector<T> xs(chunk), out(chunk);
        for (;;) {
          uint64_t start = next.fetch_add(chunk);
          if (start >= total)
            break;
          for (uint64_t i = 0; i < chunk; ++i)
            xs[i] = fromBits<T>(static_cast<typename Traits<T>::Bits>(start + i));
          vec.run(xs.data(), nullptr, out.data(), chunk);
          accumulate<T>(part[t], name, ref, xs.data(), nullptr, out.data(),
                        chunk);
        }
      });
    for (auto &th : pool)
      th.join();
    for (auto &p : part) {
      if (p.maxUlp > st.maxUlp) {
        st.maxUlp = p.maxUlp;
        st.worstX = p.worstX;
      }
      st.count += p.count;
      st.specialWrong += p.specialWrong;
      st.notes.insert(st.notes.end(), p.notes.begin(), p.notes.end());
    }
  } else {
    size_t n = static_cast<size_t>(
        o.samples * (std::is_same_v<T, float> ? 1000000 : 400000));
    std::vector<T> xs, ys;
    if (fn.arity == 1)
      xs = unaryInputs<T>(name, n);
    else
      binaryInputs<T>(name, n, xs, ys);
    std::vector<T> outS(xs.size()), outV(xs.size());
    const T *y = fn.arity == 2 ? ys.data() : nullptr;
    scalar.run(xs.data(), y, outS.data(), xs.size());
    vec.run(xs.data(), y, outV.data(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      if (toBits(outS[i]) != toBits(outV[i]))
        ++st.vecMismatch;
    accumulate<T>(st, name, ref, xs.data(), y, outV.data(), xs.size());
  }
  double runS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1)
          .count();
  bool pass = ok && st.maxUlp <= std::max(o.bound, fn.bound) && st.specialWrong == 0 &&
              st.vecMismatch == 0;
  char at[128];
  if (fn.arity == 2)
    std::snprintf(at, sizeof at, "(%.17Lg, %.17Lg)", st.worstX, st.worstY);
  else
    std::snprintf(at, sizeof at, "(%.17Lg)", st.worstX);
  std::printf("%-8s %s %-7s  max %.3f ulp  at %s  (%" PRIu64
              " inputs, %d ops, compile %.2fs, run %.2fs)%s\n",
              name.c_str(), tn, tierName, st.maxUlp, at, st.count, sc.ops,
              compileS, runS, pass ? "" : "  FAIL");
  for (auto &note : st.notes)
    std::printf("    special value wrong: %s\n", note.c_str());
  if (st.vecMismatch)
    std::printf("    %" PRIu64 " scalar/vector mismatches\n", st.vecMismatch);
  std::fflush(stdout);
  return pass;
}

/// --eval: one function at one point, against the reference.
template <typename T>
int evalOne(Jit &jit, const MathFn &fn, fuser::MathAccuracy tier,
            const char *xs, const char *ys) {
  using R = typename Traits<T>::R;
  Kernel<T> k;
  OpCheck check;
  if (!jit.compile<T>(fn, 4, tier, k, check))
    return 1;
  T x[4], y[4], out[4];
  for (int i = 0; i < 4; ++i) {
    x[i] = static_cast<T>(std::strtold(xs, nullptr));
    y[i] = ys ? static_cast<T>(std::strtold(ys, nullptr)) : T(0);
  }
  k.run(x, y, out, 4);
  R ref = referenceFor<R>(fn.name)(R(x[0]), R(y[0]));
  Verdict v;
  double err = ulpError<T>(out[0], ref, v);
  std::printf("%s %s %s(%.17Lg, %.17Lg) = %.20Lg (%a)\n  reference %.20Lg, "
              "%.3f ulp%s\n",
              fuser::stringifyMathAccuracy(tier), fn.name, Traits<T>::name, (long double)x[0], (long double)y[0],
              (long double)out[0], (double)out[0], (long double)ref, err,
              v == Verdict::Ok ? "" : ", special value wrong");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // --eval [--math fast|precise] FN TYPE X [Y]
  if (argc >= 5 && std::string(argv[1]) == "--eval") {
    fuser::MathAccuracy tier = fuser::MathAccuracy::Precise;
    int a = 2;
    if (std::string(argv[2]) == "--math" && argc >= 7) {
      if (!fuser::parseMathAccuracy(argv[3], tier))
        return 2;
      a = 4;
    }
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    Jit jit;
    const char *y = argc > a + 3 ? argv[a + 3] : nullptr;
    for (const MathFn &fn : kMathFunctions)
      if (fn.name == std::string(argv[a]))
        return std::string(argv[a + 1]) == "f32"
                   ? evalOne<float>(jit, fn, tier, argv[a + 2], y)
                   : evalOne<double>(jit, fn, tier, argv[a + 2], y);
    return 2;
  }
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto list = [](const std::string &s) {
      std::set<std::string> out;
      size_t p = 0;
      while (p <= s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos)
          q = s.size();
        if (q > p)
          out.insert(s.substr(p, q - p));
        p = q + 1;
      }
      return out;
    };
    if (a == "--exhaustive")
      o.exhaustive = true;
    else if (a == "--samples" && i + 1 < argc)
      o.samples = std::atof(argv[++i]);
    else if (a == "--only" && i + 1 < argc)
      o.only = list(argv[++i]);
    else if (a == "--type" && i + 1 < argc)
      o.types = list(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      o.threads = std::max(1, std::atoi(argv[++i]));
    else if (a == "--math" && i + 1 < argc &&
             std::string(argv[i + 1]) != "both") {
      fuser::MathAccuracy tier;
      if (!fuser::parseMathAccuracy(argv[++i], tier)) {
        std::fprintf(stderr, "--math expects fast, precise or both\n");
        return 2;
      }
      o.tiers = {tier};
    } else if (a == "--math" && i + 1 < argc) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--exhaustive] [--samples X] [--only f,g] "
                   "[--type f32,f64] [--threads N] [--math fast|precise|both]\n"
                   "       %s --eval [--math fast|precise] FN f32|f64 X [Y]\n",
                   argv[0], argv[0]);
      return 2;
    }
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  Jit jit;
  int failures = 0, passes = 0;
  for (fuser::MathAccuracy tier : o.tiers)
    for (const MathFn &fn : kMathFunctions) {
      if (!o.only.empty() && !o.only.count(fn.name))
        continue;
      if (o.types.count("f32"))
        (runFunction<float>(jit, fn, tier, o) ? passes : failures)++;
      // f64 has no fast tier: MathAccuracy::Fast gives the precise code.
      if (o.types.count("f64") && !o.exhaustive &&
          tier == fuser::MathAccuracy::Precise)
        (runFunction<double>(jit, fn, tier, o) ? passes : failures)++;
    }
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
