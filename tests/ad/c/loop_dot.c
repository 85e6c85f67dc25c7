/* Dot product with a runtime trip count (vectorized at -O2); both inputs dup,
 * the length an unannotated int (const by default). Calls twice to check that
 * the shadows accumulate. */
#include "kernel_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_dot(const double *x, double *dx, const double *y, double *dy, int n) {
  for (int i = 0; i < n; i++) {
    dx[i] += y[i];
    dy[i] += x[i];
  }
}
#endif

static void grad_dot(const double *x, double *dx, const double *y, double *dy, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_dot(x, dx, y, dy, n);
#else
  __enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
#endif
}

enum { N = 37 };
static double w_dot_x(const double *x, void *ctx) { return dot(x, (const double *)ctx, N); }
static double w_dot_y(const double *y, void *ctx) { return dot((const double *)ctx, y, N); }

int main(void) {
  double x[N], y[N], dx[N], dy[N], fdx[N], fdy[N], tw[N];
  rng_seed(1);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(y, N, -2.0, 2.0);
  zero_array(dx, N);
  zero_array(dy, N);
  grad_dot(x, dx, y, dy, N);
  fd_grad_array(w_dot_x, x, N, y, fdx);
  fd_grad_array(w_dot_y, y, N, x, fdy);
  check_array("dot_dx", dx, fdx, N, 1e-6, 1e-8);
  check_array("dot_dy", dy, fdy, N, 1e-6, 1e-8);
  grad_dot(x, dx, y, dy, N);
  for (int i = 0; i < N; i++) tw[i] = 2.0 * fdx[i];
  check_array("dot_dx_accumulates", dx, tw, N, 1e-6, 1e-8);
  for (int i = 0; i < N; i++) tw[i] = 2.0 * fdy[i];
  check_array("dot_dy_accumulates", dy, tw, N, 1e-6, 1e-8);
  /* a short length exercises only the scalar remainder loop */
  double ex[3] = {0, 0, 0}, ey[3] = {0, 0, 0};
  grad_dot(x, ex, y, ey, 3);
  check_array("dot_short_dx", ex, y, 3, 1e-12, 0.0);
  check_array("dot_short_dy", ey, x, 3, 1e-12, 0.0);
  return test_exit();
}
