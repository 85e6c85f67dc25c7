/* Forward mode of tests/ad/c/loop_const_trip.c: loops with compile-time trip
 * counts (fully unrolled at -O2), libm calls and a wrap-around index. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

#define M 8

__attribute__((noinline)) double ring(const double *x) {
  double s = 0.0;
  for (int i = 0; i < M; i++) s += sin(x[i]) * x[(i + 1) % M];
  for (int i = 0; i < 4; i++) s += 0.5 * x[2 * i] * x[2 * i + 1];
  return s;
}

static double w_ring(const double *x, void *ctx) { (void)ctx; return ring(x); }

int main(void) {
  double x[M], v[M], g[M];
  rng_seed(2);
  rng_fill(x, M, -2.0, 2.0);
  rng_fill(v, M, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)ring, enzyme_dup, x, v);
  check_close("ring_jvp", t, fd_dir(w_ring, x, v, M, NULL), 1e-6, 1e-8);
  zero_array(g, M);
  for (int i = 0; i < M; i++) {
    g[i] += cos(x[i]) * x[(i + 1) % M];
    g[(i + 1) % M] += sin(x[i]);
  }
  for (int i = 0; i < 4; i++) {
    g[2 * i] += 0.5 * x[2 * i + 1];
    g[2 * i + 1] += 0.5 * x[2 * i];
  }
  check_close("ring_grad_dot_v", t, dot_dir(g, v, M), 1e-12, 1e-13);
  return test_exit();
}
