/* Forward mode of tests/ad/whole/c/calls_deep_chain.c: calls five levels deep, each
 * level noinline; the const array q goes through the same helpers as p. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double lvl4(double v) { return sqrt(1.0 + v * v); }
__attribute__((noinline)) double lvl3(const double *p, int i) { return lvl4(p[i]) * p[i + 1]; }
__attribute__((noinline)) double lvl2(const double *p, int n) {
  double s = 0.0;
  for (int i = 0; i < n - 1; i++) s += lvl3(p, i);
  return s;
}
__attribute__((noinline)) double lvl1(const double *p, const double *q, int n) {
  double sp = lvl2(p, n);
  return sp * lvl2(q, n) + log(1.0 + sp * sp);
}
__attribute__((noinline)) double top(const double *p, const double *q, int n) {
  return 0.5 * lvl1(p, q, n);
}

enum { N = 8 };
static double qs[N];
static double w_x(const double *x, void *c) { (void)c; return top(x, qs, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(102);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(qs, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)top, enzyme_dup, x, v, enzyme_const, qs, enzyme_const, N);
    snprintf(name, sizeof name, "deep_chain_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
