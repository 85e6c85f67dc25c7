/* Forward mode of tests/ad/c/float_saxpy.c: float y += a x with the scalar a
 * passed by pointer; a, x and y all dup, the result only through memory. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void saxpyf(const float *a, const float *x, float *y, int n) {
  float av = *a;
  for (int i = 0; i < n; i++) y[i] += av * x[i];
}

enum { N = 45 };

int main(void) {
  float a = 1.3f, da = -0.4f, x[N], dx[N], y[N], dy[N], y0[N], dy0[N];
  double want[N];
  rng_seed(41);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(y0, N, -1.0, 1.0);
  rng_fill_f(dx, N, -1.0, 1.0);
  rng_fill_f(dy0, N, -1.0, 1.0);
  memcpy(y, y0, sizeof y);
  memcpy(dy, dy0, sizeof dy);
  __enzyme_fwddiff((void *)saxpyf, enzyme_dup, &a, &da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                   enzyme_const, N);
  /* y is linear in (a, x, y) along the direction up to the a*x term: central
   * differences of the primal are exact up to rounding */
  for (int i = 0; i < N; i++) {
    double h = 1e-3;
    float ap = (float)(a + h * da), am = (float)(a - h * da);
    float yp = (float)(y0[i] + h * dy0[i]) + ap * (float)(x[i] + h * dx[i]);
    float ym = (float)(y0[i] - h * dy0[i]) + am * (float)(x[i] - h * dx[i]);
    want[i] = ((double)yp - (double)ym) / (2 * h);
  }
  check_array_f("saxpyf_dy_fd", dy, want, N, 5e-3, 5e-3);
  for (int i = 0; i < N; i++) want[i] = (double)dy0[i] + (double)da * x[i] + (double)a * dx[i];
  check_array_f("saxpyf_dy_exact", dy, want, N, 1e-5, 1e-6);
  return test_exit();
}
