// silu: y = x * sigmoid(x), f32, 8192 x 2048.
// One pointwise kernel, fp32 compute, float4 loads and stores.
//
// @example silu
// @launch silu_kernel reads=x writes=result0

__device__ __forceinline__ float silu1(float v) { return v * (1.0f / (1.0f + expf(-v))); }

extern "C" __global__ void __launch_bounds__(128)
silu_kernel(const float *__restrict__ x, float *__restrict__ out, long long n) {
  long long i4 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i4 * 4 + 4 <= n) {
    float4 v = __ldg(reinterpret_cast<const float4 *>(x) + i4);
    float4 o;
    o.x = silu1(v.x);
    o.y = silu1(v.y);
    o.z = silu1(v.z);
    o.w = silu1(v.w);
    reinterpret_cast<float4 *>(out)[i4] = o;
  } else {
    for (long long i = i4 * 4; i < n; ++i)
      out[i] = silu1(x[i]);
  }
}
