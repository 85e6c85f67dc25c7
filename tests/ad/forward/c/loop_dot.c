/* Dot product with a runtime trip count (vectorized at -O2): the jvp is
 * sum(dx*y + x*dy); a short length runs only the scalar remainder loop. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

enum { N = 37 };
static double w_dot(const double *v, void *ctx) {
  (void)ctx;
  return dot(v, v + N, N);
}

int main(void) {
  double xy[2 * N], dxy[2 * N];
  rng_seed(3);
  rng_fill(xy, 2 * N, -1.0, 1.0);
  rng_fill(dxy, 2 * N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)dot, enzyme_dup, xy, dxy, enzyme_dup, xy + N, dxy + N,
                              enzyme_const, N);
  check_close("dot_jvp", t, fd_dir(w_dot, xy, dxy, 2 * N, NULL), 1e-7, 1e-9);
  double want = 0.0;
  for (int i = 0; i < 3; i++) want += dxy[i] * xy[N + i] + xy[i] * dxy[N + i];
  double t3 = __enzyme_fwddiff((void *)dot, enzyme_dup, xy, dxy, enzyme_dup, xy + N, dxy + N,
                               enzyme_const, 3);
  check_close("dot_short", t3, want, 1e-14, 1e-15);
  double t0 = __enzyme_fwddiff((void *)dot, enzyme_dup, xy, dxy, enzyme_dup, xy + N, dxy + N,
                               enzyme_const, 0);
  check_close("dot_empty", t0, 0.0, 0.0, 0.0);
  /* y const: only x moves */
  double tc = __enzyme_fwddiff((void *)dot, enzyme_dup, xy, dxy, enzyme_const, xy + N, N);
  double wc = 0.0;
  for (int i = 0; i < N; i++) wc += dxy[i] * xy[N + i];
  check_close("dot_const_y", tc, wc, 1e-13, 1e-14);
  return test_exit();
}
