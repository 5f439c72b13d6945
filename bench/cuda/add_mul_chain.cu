// add_mul_chain: out = (x + row) * col * alpha + x, f32, 2048 x 1000.
// Hand-written the way nvFuser emits a pointwise fusion: one kernel, fp32
// compute, 4-wide vector loads when the row length allows, sizes as
// parameters, static-shape constants baked in.
//
// @example add_mul_chain
// @launch add_mul_chain_kernel reads=x,row,col,alpha writes=result0

#define N_COLS 1000

extern "C" __global__ void __launch_bounds__(128)
add_mul_chain_kernel(const float *__restrict__ x, const float *__restrict__ row,
                     const float *__restrict__ col, const float *__restrict__ alpha,
                     float *__restrict__ out, long long rows) {
  // Each thread handles 4 consecutive elements of one row (N_COLS % 4 == 0).
  long long i4 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long n4 = rows * (N_COLS / 4);
  if (i4 >= n4)
    return;
  long long r = i4 / (N_COLS / 4);
  int c = (int)(i4 - r * (N_COLS / 4)) * 4;
  float a = __ldg(alpha);
  float cv = __ldg(col + r);
  float4 xv = __ldg(reinterpret_cast<const float4 *>(x) + i4);
  float4 rv = __ldg(reinterpret_cast<const float4 *>(row + c));
  float4 o;
  o.x = (xv.x + rv.x) * cv * a + xv.x;
  o.y = (xv.y + rv.y) * cv * a + xv.y;
  o.z = (xv.z + rv.z) * cv * a + xv.z;
  o.w = (xv.w + rv.w) * cv * a + xv.w;
  reinterpret_cast<float4 *>(out)[i4] = o;
}
