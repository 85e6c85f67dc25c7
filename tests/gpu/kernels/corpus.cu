/* Test kernels for the simulated grid (tests/gpu/test_grid.py): each is checked against a
 * NumPy reference on the serial grid (no barriers) and on the threaded grid. */
#include "cuda_lite.h"

/* element-wise map, float32 */
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) y[i] = a * x[i] + y[i];
}

/* gather through an index, scatter with a non-injective index: atomics */
extern "C" __global__ void gather_scatter(int n, const int *idx, const double *x, double *out) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) atomicAdd(&out[idx[i]], x[idx[(i + 1) % n]] * x[i]);
}

/* block reduction in shared memory with barriers (blockDim.x == 64), float64 */
extern "C" __global__ void block_sum(const double *x, double *out) {
  __shared__ double buf[64];
  unsigned t = threadIdx_x;
  double v = x[blockIdx_x * 64 + t];
  buf[t] = v * v;
  __syncthreads();
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx_x] = buf[0];
}

/* warp-shuffle reduction (down), then one atomic per warp */
extern "C" __global__ void warp_sum(int n, const float *x, float *out) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  float v = i < n ? x[i] : 0.0f;
  for (int d = 16; d > 0; d >>= 1) v += __nvvm_shfl_sync_down_f32(FULL_MASK, v, d, 31);
  if ((threadIdx_x & 31) == 0) atomicAddf(out, v);
}

/* the other shuffle modes: inclusive scan (up), butterfly max (bfly), broadcast (idx) */
extern "C" __global__ void warp_modes(const float *x, float *scan, float *mx, float *bcast) {
  unsigned lane = threadIdx_x & 31;
  float v = x[threadIdx_x];
  float s = v;
  for (int d = 1; d < 32; d <<= 1) {
    float o = __nvvm_shfl_sync_up_f32(FULL_MASK, s, d, 0);
    if ((int)lane >= d) s += o;
  }
  scan[threadIdx_x] = s;
  float m = v;
  for (int d = 16; d > 0; d >>= 1) m = __nvvm_fmax_f(m, __nvvm_shfl_sync_bfly_f32(FULL_MASK, m, d, 31));
  mx[threadIdx_x] = m;
  bcast[threadIdx_x] = __nvvm_shfl_sync_idx_f32(FULL_MASK, v, 3, 31);
}

/* 1-D three-point stencil */
extern "C" __global__ void stencil1d(int n, const double *u, double *v) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i > 0 && i < n - 1) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
}

/* 2-D five-point stencil on a 2-D grid of 2-D blocks */
extern "C" __global__ void stencil2d(int nx, int ny, const double *u, double *v) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  int j = blockIdx_y * blockDim_y + threadIdx_y;
  if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1)
    v[j * nx + i] = u[j * nx + i] - 0.2 * (4.0 * u[j * nx + i] - u[j * nx + i - 1] -
                                           u[j * nx + i + 1] - u[(j - 1) * nx + i] -
                                           u[(j + 1) * nx + i]);
}

/* a LULESH-style per-element update with sqrt, rsqrt and fma */
extern "C" __global__ void element_update(int n, const double *e, const double *p, double *q) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) {
    double c = __nvvm_sqrt_rn_d(e[i] * e[i] + p[i] * p[i]);
    double r = __nvvm_rsqrt_approx_d(1.0 + c);
    q[i] = __nvvm_fma_rn_d(c, r, p[i]);
  }
}

/* a loop per thread (Horner's rule over a per-thread slice) */
extern "C" __global__ void horner(int n, int degree, const double *coef, const double *x,
                                  double *y) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) {
    double acc = 0.0;
    for (int k = degree; k >= 0; k--) acc = acc * x[i] + coef[k];
    y[i] = acc;
  }
}

/* a reduction by atomics: each thread reads only its own x[i] (so its adjoint needs no atomic
 * when the launch is 1-D, which the gradient checks; `__restrict__`: out is not x) and adds
 * into one sum; race-free under any launch, so 2-D blocks may share an index */
extern "C" __global__ void sum_squares(int n, double a, const double *__restrict__ x,
                                       double *__restrict__ out) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) atomicAdd(out, a * x[i] * x[i]);
}

/* contention: every thread adds 1.0 to one element `reps` times, without and with atomics
 * (the threaded grid must show the lost updates of the first) */
extern "C" __global__ void racy_count(int reps, volatile double *out) {
  __syncthreads();
  for (int r = 0; r < reps; r++) out[0] = out[0] + 1.0;
}
extern "C" __global__ void atomic_count(int reps, double *out) {
  __syncthreads();
  for (int r = 0; r < reps; r++) atomicAdd(out, 1.0);
}

/* an XSBench-style table lookup: a binary search of each particle's energy in a sorted energy
 * grid, then linear interpolation of the cross sections (a gather; its adjoint a scatter) */
extern "C" __global__ void xs_lookup(int n, int m, const double *egrid, const double *xs,
                                     const double *energy, double *out) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) {
    double e = energy[i];
    int lo = 0, hi = m - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (egrid[mid] > e) hi = mid; else lo = mid;
    }
    double f = (e - egrid[lo]) / (egrid[hi] - egrid[lo]);
    out[i] = xs[lo] + f * (xs[hi] - xs[lo]);
  }
}

/* contention for the gradient: every thread reads the same few weights `reps` times through a
 * data-dependent index, so every thread's reverse sweep adds into the same few adjoints (the
 * barrier lines the threads up, so that they overlap in time on the simulated grid) */
extern "C" __global__ void shared_weight(int reps, const int *__restrict__ idx,
                                         const double *__restrict__ w,
                                         const double *__restrict__ x, double *__restrict__ out) {
  __syncthreads();
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  double acc = 0.0;
  for (int r = 0; r < reps; r++) acc += w[idx[r]] * x[i];
  out[i] = acc;
}
