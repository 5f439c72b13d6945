/* The 16-bit floats and TF32, in plain C: conversions of IEEE half (f16)
 * and bfloat16 to and from float, rounding to nearest even as the hardware
 * does, and float rounded to TF32 (10 mantissa bits). The CUDA backend
 * applies a GEMM's activation to its bias with them when k is 0 (cuda.c);
 * the fake cuBLASLt computes with them and test_gemm's reference checks
 * with them (test/runtime/fp16.h includes this file). */
#ifndef FUSER_RUNTIME_FP16_H
#define FUSER_RUNTIME_FP16_H

#include <stdint.h>
#include <string.h>

static inline uint32_t fp_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
static inline float fp_float(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline float fp_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f,
           m = h & 0x3ff;
  if (e == 0) { /* zero or subnormal: m * 2^-24 */
    float v = (float)m * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (e == 31) return fp_float(sign | 0x7f800000u | (m << 13));
  return fp_float(sign | ((e - 15 + 127) << 23) | (m << 13));
}

static inline uint16_t fp_float_to_half(float f) {
  uint32_t x = fp_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) /* infinity, NaN */
    return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds to inf */
  if (a < 0x38800000u) { /* below 2^-14: a subnormal half (or 0) */
    float scaled = fp_float(a) * 16777216.0f; /* exact: a power of 2 */
    uint32_t q = (uint32_t)scaled;
    float frac = scaled - (float)q;
    if (frac > 0.5f || (frac == 0.5f && (q & 1))) q++;
    return (uint16_t)(sign | q);
  }
  uint32_t h = ((((a >> 23) - 127 + 15)) << 10) | ((a & 0x7fffff) >> 13);
  uint32_t rest = a & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static inline float fp_bf16_to_float(uint16_t b) {
  return fp_float((uint32_t)b << 16);
}

static inline uint16_t fp_float_to_bf16(float f) {
  uint32_t x = fp_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* f rounded to TF32: 10 mantissa bits, to nearest even. */
static inline float fp_round_tf32(float f) {
  uint32_t x = fp_bits(f);
  if ((x & 0x7f800000u) == 0x7f800000u) return f;
  x += 0xfff + ((x >> 13) & 1);
  return fp_float(x & ~0x1fffu);
}

#endif
