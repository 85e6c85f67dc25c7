/* Divide-and-conquer recursion over array halves, two recursive calls whose
 * results are combined nonlinearly: dc(x, 1) = x0^2,
 * dc(x, n) = sqrt(a^2 + b^2 + 1) with a = dc(left half), b = dc(right half). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double dc(const double *x, int n) {
  if (n == 1) return x[0] * x[0];
  int h = n / 2;
  double a = dc(x, h), b = dc(x + h, n - h);
  return sqrt(a * a + b * b + 1.0);
}

#ifdef REFERENCE_GRADIENT
/* hand-written reverse sweep: adds seed * d dc / dx into dx */
static double ref_dc_rev(const double *x, double *dx, int n, double seed) {
  if (n == 1) { dx[0] += seed * 2.0 * x[0]; return x[0] * x[0]; }
  int h = n / 2;
  double a = dc(x, h), b = dc(x + h, n - h);
  double v = sqrt(a * a + b * b + 1.0);
  ref_dc_rev(x, dx, h, seed * a / v);
  ref_dc_rev(x + h, dx + h, n - h, seed * b / v);
  return v;
}
#endif

static void grad_dc(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_dc_rev(x, dx, n, 1.0);
#else
  __enzyme_autodiff((void *)dc, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 13 };
static double w_x(const double *x, void *c) { (void)c; return dc(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(107);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  grad_dc(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("divide_conquer_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
