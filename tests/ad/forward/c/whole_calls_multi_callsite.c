/* Forward mode of tests/ad/whole/c/calls_multi_callsite.c: one noinline callee called from
 * several sites with different activity (dot(x, x), dot(x, c), dot(c, c)). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
__attribute__((noinline)) double soft(double t, double k) { return log(1.0 + exp(k * t)) / k; }

__attribute__((noinline)) double loss(const double *x, const double *c, int n) {
  double xx = dot(x, x, n), xc = dot(x, c, n), cc = dot(c, c, n);
  return 0.5 * xx + xc * cc + soft(xc, 2.0) * soft(1.5, 3.0);
}

enum { N = 7 };
static double cs[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, cs, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(104);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(cs, N, -0.5, 0.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, cs, enzyme_const, N);
    snprintf(name, sizeof name, "multi_callsite_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
