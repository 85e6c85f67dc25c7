/* Forward mode of tests/ad/c/vec_saxpy.c: y += a x (vectorized at -O2), a void
 * function with its result only in memory; a, x and y all carry tangents. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void saxpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

enum { N = 103 };

int main(void) {
  double a = 1.7, da = -0.6, x[N], dx[N], y0[N], dy0[N], y[N], dy[N], want[N];
  rng_seed(23);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(y0, N, -1.0, 1.0);
  rng_fill(dx, N, -1.0, 1.0);
  rng_fill(dy0, N, -1.0, 1.0);
  memcpy(y, y0, sizeof y);
  memcpy(dy, dy0, sizeof dy);
  __enzyme_fwddiff((void *)saxpy, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                   enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6;
    double yp = (y0[i] + h * dy0[i]) + (a + h * da) * (x[i] + h * dx[i]);
    double ym = (y0[i] - h * dy0[i]) + (a - h * da) * (x[i] - h * dx[i]);
    want[i] = (yp - ym) / (2 * h);
  }
  check_array("saxpy_dy_fd", dy, want, N, 1e-6, 1e-8);
  for (int i = 0; i < N; i++) want[i] = dy0[i] + da * x[i] + a * dx[i];
  check_array("saxpy_dy_exact", dy, want, N, 1e-14, 1e-15);
  /* only a moves: the tangent of y is da * x (y's own shadow starts at zero) */
  memcpy(y, y0, sizeof y);
  zero_array(dy, N);
  __enzyme_fwddiff((void *)saxpy, enzyme_dup, a, 1.0, enzyme_const, x, enzyme_dup, y, dy,
                   enzyme_const, N);
  check_array("saxpy_dy_da", dy, x, N, 1e-15, 0.0);
  return test_exit();
}
