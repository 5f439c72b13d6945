//===- ReferenceGemm.cpp - the emulator's matrix multiply -----------------===//
//
// Operands are first converted to the accumulation type, a row-major panel
// of A's and a transposed (column) panel of B's, so that the inner loop
// reads both contiguously; 4 x 4 outputs are accumulated at once (16
// independent chains of fused multiply-adds keep the FPU busy). Each output
// still adds its products in order of the contracted index, so blocking
// does not change a bit. 1024^3 takes a few seconds.
//
//===----------------------------------------------------------------------===//

#include "ReferenceGemm.h"

// The runtime's 16-bit float and TF32 conversions (plain C, round to
// nearest even): the CUDA backend and the fake cuBLASLt use the same.
#include "../../runtime/src/fp16.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

using namespace mlir::fuser::emu;

namespace {

template <typename T> T load(uint64_t base, int64_t i, uint32_t dtype) {
  const void *p = reinterpret_cast<const void *>(base);
  switch (dtype) {
  case FUSER_BUNDLE_DTYPE_F16: return T(fp_half_to_float(static_cast<const uint16_t *>(p)[i]));
  case FUSER_BUNDLE_DTYPE_BF16: return T(fp_bf16_to_float(static_cast<const uint16_t *>(p)[i]));
  case FUSER_BUNDLE_DTYPE_F32: return T(static_cast<const float *>(p)[i]);
  default: return T(static_cast<const double *>(p)[i]);
  }
}

template <typename T> void store(uint64_t base, int64_t i, uint32_t dtype, T v) {
  void *p = reinterpret_cast<void *>(base);
  switch (dtype) {
  case FUSER_BUNDLE_DTYPE_F16: static_cast<uint16_t *>(p)[i] = fp_float_to_half(float(v)); break;
  case FUSER_BUNDLE_DTYPE_BF16: static_cast<uint16_t *>(p)[i] = fp_float_to_bf16(float(v)); break;
  case FUSER_BUNDLE_DTYPE_F32: static_cast<float *>(p)[i] = float(v); break;
  default: static_cast<double *>(p)[i] = double(v); break;
  }
}

/// The epilogue's activation: relu as PyTorch's (-0 and NaN stay); gelu
/// with tanh's approximation, computed in f64 and rounded to T (so the C
/// library's tanh, whose last f64 bit may differ between hosts, changes an
/// f32 result only when it lies within an f64 ulp of an f32 rounding
/// boundary).
template <typename T> T activate(T v, uint32_t epilogue) {
  if (epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_RELU)
    return v < T(0) ? T(0) : v;
  if (epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_GELU) {
    double x = double(v);
    return T(0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))));
  }
  return v;
}

inline float fusedMultiplyAdd(float a, float b, float c) { return std::fmaf(a, b, c); }
inline double fusedMultiplyAdd(double a, double b, double c) { return std::fma(a, b, c); }

template <typename T> void gemm(const fuser_gemm &g) {
  const int64_t m = g.m, n = g.n, k = g.k;
  const bool transA = g.flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A;
  const bool transB = g.flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  const bool tf32 = (g.flags & FUSER_BUNDLE_GEMM_FLAG_TF32) && g.ab_dtype == FUSER_BUNDLE_DTYPE_F32;
  std::vector<T> a(size_t(m) * k), bt(size_t(n) * k), bias(n, T(0));
  const bool addBias = g.epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS;
  if (addBias)
    for (int64_t j = 0; j < n; ++j)
      bias[j] = load<T>(g.bias, j, g.d_dtype);
  auto operand = [&](uint64_t base, int64_t at) {
    T v = load<T>(base, at, g.ab_dtype);
    if constexpr (std::is_same_v<T, float>)
      if (tf32)
        v = fp_round_tf32(v);
    return v;
  };
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    uint64_t esize = fuser_dtype_size(fuser_dtype(g.ab_dtype));
    uint64_t aBase = g.a + uint64_t(batch * g.stride_a) * esize;
    uint64_t bBase = g.b + uint64_t(batch * g.stride_b) * esize;
    if (batch == 0 || g.stride_a)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t l = 0; l < k; ++l)
          a[i * k + l] = operand(aBase, transA ? l * g.lda + i : i * g.lda + l);
    if (batch == 0 || g.stride_b)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t l = 0; l < k; ++l)
          bt[j * k + l] = operand(bBase, transB ? j * g.ldb + l : l * g.ldb + j);
    int64_t dOffset = batch * g.stride_d;
    for (int64_t i0 = 0; i0 < m; i0 += 4)
      for (int64_t j0 = 0; j0 < n; j0 += 4) {
        int64_t ni = std::min<int64_t>(4, m - i0), nj = std::min<int64_t>(4, n - j0);
        T acc[4][4] = {};
        if (ni == 4 && nj == 4) {
          for (int64_t l = 0; l < k; ++l)
            for (int di = 0; di < 4; ++di)
              for (int dj = 0; dj < 4; ++dj)
                acc[di][dj] = fusedMultiplyAdd(a[(i0 + di) * k + l], bt[(j0 + dj) * k + l],
                                               acc[di][dj]);
        } else {
          for (int64_t l = 0; l < k; ++l)
            for (int di = 0; di < ni; ++di)
              for (int dj = 0; dj < nj; ++dj)
                acc[di][dj] = fusedMultiplyAdd(a[(i0 + di) * k + l], bt[(j0 + dj) * k + l],
                                               acc[di][dj]);
        }
        for (int di = 0; di < ni; ++di)
          for (int dj = 0; dj < nj; ++dj) {
            // (no bias added at all without one: -0 + 0 would be +0)
            T v = addBias ? acc[di][dj] + bias[j0 + dj] : acc[di][dj];
            uint64_t at = dOffset + (i0 + di) * g.ldd + j0 + dj;
            // The activation's input too (EPILOGUE_AUX), rounded once as D.
            if (g.aux)
              store<T>(g.aux, at, g.d_dtype, v);
            store<T>(g.d, at, g.d_dtype, activate(v, g.epilogue));
          }
      }
  }
  // The bias gradient (one batch: the runtime refuses more): each row of
  // opA(A) or column of opB(B) summed over k, in order, rounded once. The
  // operands as loaded (TF32 rounding aside: the compiler folds no bias
  // gradient into a TF32 GEMM).
  // Both panels hold their operand k-contiguous: A's rows, B's columns.
  auto sumPanel = [&](const std::vector<T> &panel, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      T sum = T(0);
      for (int64_t l = 0; l < k; ++l)
        sum += panel[i * k + l];
      store<T>(g.bias, i, g.d_dtype, sum);
    }
  };
  if (g.epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A)
    sumPanel(a, m);
  if (g.epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B)
    sumPanel(bt, n);
}

} // namespace

GemmReach mlir::fuser::emu::gemmReach(const fuser_gemm &g) {
  GemmReach r;
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0)
    return r;
  auto reach = [&](int64_t rows, int64_t cols, int64_t ld, int64_t stride, uint32_t dtype) {
    if (rows <= 0 || cols <= 0)
      return uint64_t(0);
    uint64_t last = uint64_t(rows - 1) * ld + uint64_t(cols - 1) + uint64_t(g.batch - 1) * stride;
    return (last + 1) * fuser_dtype_size(fuser_dtype(dtype));
  };
  bool transA = g.flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A;
  bool transB = g.flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  r.a = reach(transA ? g.k : g.m, transA ? g.m : g.k, g.lda, g.stride_a, g.ab_dtype);
  r.b = reach(transB ? g.n : g.k, transB ? g.k : g.n, g.ldb, g.stride_b, g.ab_dtype);
  r.d = reach(g.m, g.n, g.ldd, g.stride_d, g.d_dtype);
  if (g.bias)
    r.bias = uint64_t(g.epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A ? g.m : g.n) *
             fuser_dtype_size(fuser_dtype(g.d_dtype));
  if (g.aux)
    r.aux = r.d; // laid out as D
  return r;
}

void mlir::fuser::emu::referenceGemm(const fuser_gemm &g) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0)
    return;
  if (g.ab_dtype == FUSER_BUNDLE_DTYPE_F64)
    gemm<double>(g);
  else
    gemm<float>(g);
}
