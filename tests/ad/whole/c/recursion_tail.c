/* Recursion that -O2 turns into loops (accumulator tail recursion): a
 * recursive sum of sin(x[i]) over an array and a recursive integer power. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double rsum(const double *x, int n) {
  if (n == 0) return 0.0;
  return sin(x[n - 1]) + rsum(x, n - 1);
}
__attribute__((noinline)) double rpow(double b, int k) {
  if (k == 0) return 1.0;
  return b * rpow(b, k - 1);
}
__attribute__((noinline)) double loss(const double *x, int n) {
  return rpow(1.0 + 0.1 * rsum(x, n), 5);
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(x[i]);
  double b = 1.0 + 0.1 * s, db = 5.0 * b * b * b * b;
  for (int i = 0; i < n; i++) dx[i] += db * 0.1 * cos(x[i]);
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 11 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(105);
  rng_fill(x, N, -2.0, 2.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("rsum_rpow_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
