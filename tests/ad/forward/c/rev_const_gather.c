/* Forward mode of tests/ad/c/const_gather.c: enzyme_const weights and int
 * indices, a gather with repeated indices; only x carries a tangent. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double gather(const double *x, const double *w, const int *idx,
                                        int m) {
  double s = 0.0;
  for (int i = 0; i < m; i++) {
    double v = x[idx[i]];
    s += w[i] * v * v + w[i] * sin(v) * 0.5;
  }
  return s;
}

enum { N = 10, M = 23 };
static double wb[M];
static int ib[M];
static double w_gather(const double *x, void *c) { (void)c; return gather(x, wb, ib, M); }

int main(void) {
  double x[N], v[N], g[N];
  rng_seed(26);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(wb, M, -1.0, 1.0);
  for (int i = 0; i < M; i++) ib[i] = (int)(rng_next() % (N - 1)); /* x[N-1] never read */
  rng_fill(v, N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)gather, enzyme_dup, x, v, enzyme_const, wb, enzyme_const,
                              ib, enzyme_const, M);
  check_close("gather_jvp", t, fd_dir(w_gather, x, v, N, NULL), 1e-6, 1e-8);
  zero_array(g, N);
  for (int i = 0; i < M; i++) g[ib[i]] += wb[i] * (2.0 * x[ib[i]] + 0.5 * cos(x[ib[i]]));
  check_close("gather_grad_dot_v", t, dot_dir(g, v, N), 1e-12, 1e-13);
  /* a tangent only on the unread element changes nothing */
  double e[N];
  zero_array(e, N);
  e[N - 1] = 1.0;
  double t0 = __enzyme_fwddiff((void *)gather, enzyme_dup, x, e, enzyme_const, wb, enzyme_const,
                               ib, enzyme_const, M);
  check_close("gather_unread_zero", t0, 0.0, 0.0, 0.0);
  return test_exit();
}
