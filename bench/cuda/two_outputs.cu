// two_outputs: pre = x + bias, act = relu(pre), f16, 4096 x 4096.
// One pointwise kernel with two outputs; each f16 add is computed in f32
// and rounded to f16 (as PyTorch does); 8 halves (16 bytes) per thread.
//
// @example two_outputs
// @launch two_outputs_kernel reads=x,bias writes=result0,result1

#define N_COLS 4096

__device__ __forceinline__ float h2f(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short f2h(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ void one(unsigned xw, unsigned bw, unsigned &pre, unsigned &act) {
  unsigned short p0 = f2h(h2f((unsigned short)(xw & 0xFFFF)) + h2f((unsigned short)(bw & 0xFFFF)));
  unsigned short p1 = f2h(h2f((unsigned short)(xw >> 16)) + h2f((unsigned short)(bw >> 16)));
  float f0 = h2f(p0), f1 = h2f(p1);
  // relu keeps NaN: only values that compare below zero become +0.
  unsigned short a0 = f0 < 0.0f ? (unsigned short)0 : p0;
  unsigned short a1 = f1 < 0.0f ? (unsigned short)0 : p1;
  pre = (unsigned)p0 | ((unsigned)p1 << 16);
  act = (unsigned)a0 | ((unsigned)a1 << 16);
}

extern "C" __global__ void __launch_bounds__(128)
two_outputs_kernel(const unsigned short *__restrict__ x, const unsigned short *__restrict__ bias,
                   unsigned short *__restrict__ pre, unsigned short *__restrict__ act,
                   long long rows) {
  long long i8 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i8 >= rows * (N_COLS / 8))
    return;
  int c = (int)(i8 % (N_COLS / 8)) * 8;
  uint4 xv = __ldg(reinterpret_cast<const uint4 *>(x) + i8);
  uint4 bv = __ldg(reinterpret_cast<const uint4 *>(bias + c));
  uint4 p, a;
  one(xv.x, bv.x, p.x, a.x);
  one(xv.y, bv.y, p.y, a.y);
  one(xv.z, bv.z, p.z, a.z);
  one(xv.w, bv.w, p.w, a.w);
  reinterpret_cast<uint4 *>(pre)[i8] = p;
  reinterpret_cast<uint4 *>(act)[i8] = a;
}
