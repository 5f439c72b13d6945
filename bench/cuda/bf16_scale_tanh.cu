// bf16_scale_tanh: y = bf16(tanh(f32(x) * 0.5) + f32(y)), 8192 x 4096.
// One pointwise kernel, fp32 compute, 8 bf16 (16 bytes) per thread.
//
// @example bf16_scale_tanh
// @launch bf16_scale_tanh_kernel reads=x,y writes=result0

__device__ __forceinline__ float bf16_to_f32(unsigned short h) {
  return __uint_as_float(((unsigned)h) << 16);
}
__device__ __forceinline__ unsigned short f32_to_bf16(float f) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ unsigned pack(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | ((unsigned)hi << 16);
}
__device__ __forceinline__ unsigned one(unsigned xw, unsigned yw) {
  float x0 = bf16_to_f32((unsigned short)(xw & 0xFFFF)), x1 = bf16_to_f32((unsigned short)(xw >> 16));
  float y0 = bf16_to_f32((unsigned short)(yw & 0xFFFF)), y1 = bf16_to_f32((unsigned short)(yw >> 16));
  return pack(f32_to_bf16(tanhf(x0 * 0.5f) + y0), f32_to_bf16(tanhf(x1 * 0.5f) + y1));
}

extern "C" __global__ void __launch_bounds__(128)
bf16_scale_tanh_kernel(const unsigned short *__restrict__ x,
                       const unsigned short *__restrict__ y,
                       unsigned short *__restrict__ out, long long n) {
  long long i8 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i8 * 8 + 8 <= n) {
    uint4 xv = __ldg(reinterpret_cast<const uint4 *>(x) + i8);
    uint4 yv = __ldg(reinterpret_cast<const uint4 *>(y) + i8);
    uint4 o;
    o.x = one(xv.x, yv.x);
    o.y = one(xv.y, yv.y);
    o.z = one(xv.z, yv.z);
    o.w = one(xv.w, yv.w);
    reinterpret_cast<uint4 *>(out)[i8] = o;
  } else {
    for (long long i = i8 * 8; i < n; ++i)
      out[i] = f32_to_bf16(tanhf(bf16_to_f32(x[i]) * 0.5f) + bf16_to_f32(y[i]));
  }
}
