/* float data: softmax cross-entropy in single precision (expf, logf, fmaxf),
 * vectorized at -O2; the float tangent is checked against a double-precision
 * difference of the float primal. */
#include "fwd_test.h"

float __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float xent(const float *z, int n, int label) {
  float m = z[0];
  for (int i = 1; i < n; i++) m = fmaxf(m, z[i]);
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += expf(z[i] - m);
  return logf(s) + m - z[label];
}

enum { N = 19, L = 5 };

int main(void) {
  float z[N], dz[N];
  rng_seed(19);
  rng_fill_f(z, N, -2.0, 2.0);
  rng_fill_f(dz, N, -1.0, 1.0);
  float t = __enzyme_fwddiff((void *)xent, enzyme_dup, z, dz, enzyme_const, N, enzyme_const, L);
  /* analytic: sum(softmax * dz) - dz[label] (in double) */
  double m = z[0], s = 0.0, w = 0.0;
  for (int i = 1; i < N; i++) m = fmax(m, z[i]);
  for (int i = 0; i < N; i++) s += exp(z[i] - m);
  for (int i = 0; i < N; i++) w += exp(z[i] - m) / s * dz[i];
  check_close("xent_float", (double)t, w - dz[L], 1e-5, 1e-6);
  float zp[N], zm[N];
  double h = 1e-2;
  for (int i = 0; i < N; i++) {
    zp[i] = (float)(z[i] + h * dz[i]);
    zm[i] = (float)(z[i] - h * dz[i]);
  }
  double fd = ((double)xent(zp, N, L) - (double)xent(zm, N, L)) / (2 * h);
  check_close("xent_float_fd", (double)t, fd, 2e-3, 1e-4);
  return test_exit();
}
