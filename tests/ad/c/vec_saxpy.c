/* saxpy y += a x (vectorized at -O2): void function, output only through
 * memory; a is an enzyme_out scalar whose derivative is returned while x and
 * y are dup.  d_y is the seed and stays (y's old value feeds the new one);
 * d_x accumulates, checked by calling twice.
 *
 * Forward mode (-DFORWARD_MODE): y += a x (vectorized at -O2), a void
 * function with its result only in memory; a, x and y all carry tangents. */
#include "kernel_test.h"

__attribute__((noinline)) void saxpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_saxpy(double a, const double *x, double *dx, double *y, double *dy,
                             int n) {
  double da = 0.0;
  saxpy(a, x, y, n);
  for (int i = 0; i < n; i++) {
    da += x[i] * dy[i];
    dx[i] += a * dy[i];
  }
  return da;
}
#endif

static double grad_saxpy(double a, const double *x, double *dx, double *y, double *dy, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_saxpy(a, x, dx, y, dy, n);
#else
  return __enzyme_autodiff((void *)saxpy, enzyme_out, a, enzyme_dup, x, dx, enzyme_dup, y, dy,
                           n);
#endif
}

enum { N = 103 };
static double xb[N], yb[N], seed[N], ab = 1.7;
static double seeded(double a, const double *x) {
  double y[N], s = 0.0;
  memcpy(y, yb, sizeof y);
  saxpy(a, x, y, N);
  for (int i = 0; i < N; i++) s += seed[i] * y[i];
  return s;
}
static double w_a(double a, void *c) { (void)c; return seeded(a, xb); }
static double w_x(const double *x, void *c) { (void)c; return seeded(ab, x); }

int main(void) {
  double dx[N], y[N], dy[N], fdx[N], tw[N];
  rng_seed(23);
  rng_fill(xb, N, -1.0, 1.0);
  rng_fill(yb, N, -1.0, 1.0);
  rng_fill(seed, N, -1.0, 1.0);
  zero_array(dx, N);
  memcpy(y, yb, sizeof y);
  memcpy(dy, seed, sizeof dy);
  double da = grad_saxpy(ab, xb, dx, y, dy, N);
  fd_grad_array(w_x, xb, N, NULL, fdx);
  check_array("saxpy_dx", dx, fdx, N, 1e-6, 1e-8);
  check_close("saxpy_da", da, fd_deriv(w_a, ab, NULL), 1e-6, 1e-8);
  check_array("saxpy_dy_unchanged", dy, seed, N, 1e-15, 0.0);
  memcpy(y, yb, sizeof y);
  double da2 = grad_saxpy(ab, xb, dx, y, dy, N);
  for (int i = 0; i < N; i++) tw[i] = 2.0 * fdx[i];
  check_array("saxpy_dx_accumulates", dx, tw, N, 1e-6, 1e-8);
  check_close("saxpy_da_not_accumulated", da2, da, 1e-12, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
