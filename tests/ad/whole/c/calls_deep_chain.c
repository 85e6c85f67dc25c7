/* Calls five levels deep, each level noinline; the constant array q goes
 * through the same helpers as the active array p. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_top(const double *p, double *dp, const double *q, int n) {
  double s = 0.0, t = 0.0;
  for (int i = 0; i < n - 1; i++) {
    s += sqrt(1.0 + p[i] * p[i]) * p[i + 1];
    t += sqrt(1.0 + q[i] * q[i]) * q[i + 1];
  }
  double ds = 0.5 * (t + 2.0 * s / (1.0 + s * s));
  for (int i = 0; i < n - 1; i++) {
    dp[i] += ds * p[i] / sqrt(1.0 + p[i] * p[i]) * p[i + 1];
    dp[i + 1] += ds * sqrt(1.0 + p[i] * p[i]);
  }
}
#endif

static void grad_top(const double *p, double *dp, const double *q, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_top(p, dp, q, n);
#else
  __enzyme_autodiff((void *)top, enzyme_dup, p, dp, enzyme_const, q, enzyme_const, n);
#endif
}

enum { N = 8 };
static double qs[N];
static double w_p(const double *p, void *c) { (void)c; return top(p, qs, N); }

int main(void) {
  double p[N], dp[N], fd[N];
  rng_seed(102);
  rng_fill(p, N, -1.0, 1.0);
  rng_fill(qs, N, -1.0, 1.0);
  zero_array(dp, N);
  grad_top(p, dp, qs, N);
  fd_grad_array(w_p, p, N, NULL, fd);
  check_array("deep_chain_dp", dp, fd, N, 1e-6, 1e-9);
  return test_exit();
}
