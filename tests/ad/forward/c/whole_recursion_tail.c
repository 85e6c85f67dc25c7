/* Forward mode of tests/ad/whole/c/recursion_tail.c: accumulator tail recursion
 * (a recursive sum of sin(x[i]) and a recursive integer power). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

enum { N = 11 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(105);
  rng_fill(x, N, -2.0, 2.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "rsum_rpow_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
