/* Forward mode of tests/ad/c/float_dot.c: float dot product (vectorized at
 * -O2) with a float tangent return; both inputs dup. */
#include "fwd_test.h"

float __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float dotf(const float *x, const float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

enum { N = 70 };
static float w_dot(const float *p, void *c) { (void)c; return dotf(p, p + N, N); }

int main(void) {
  float p[2 * N], v[2 * N];
  rng_seed(40);
  rng_fill_f(p, 2 * N, -1.0, 1.0);
  rng_fill_f(v, 2 * N, -1.0, 1.0);
  float t = __enzyme_fwddiff((void *)dotf, enzyme_dup, p, v, enzyme_dup, p + N, v + N,
                             enzyme_const, N);
  check_close("dotf_jvp", t, fd_dir_f(w_dot, p, v, 2 * N, NULL), 5e-3, 5e-3);
  double want = 0.0;
  for (int i = 0; i < N; i++) want += (double)v[i] * p[N + i] + (double)p[i] * v[N + i];
  check_close("dotf_exact", t, want, 1e-5, 1e-5);
  return test_exit();
}
