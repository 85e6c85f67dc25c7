/* enzyme_const arrays: a constant weight array and a constant int index array
 * used for a gather with repeated indices (gradient contributions add up).
 *
 * Forward mode (-DFORWARD_MODE): enzyme_const weights and int
 * indices, a gather with repeated indices; only x carries a tangent. */
#include "kernel_test.h"

__attribute__((noinline)) double gather(const double *x, const double *w, const int *idx,
                                        int m) {
  double s = 0.0;
  for (int i = 0; i < m; i++) {
    double v = x[idx[i]];
    s += w[i] * v * v + w[i] * sin(v) * 0.5;
  }
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_gather(const double *x, double *dx, const double *w, const int *idx,
                            int m) {
  for (int i = 0; i < m; i++) {
    double v = x[idx[i]];
    dx[idx[i]] += w[i] * (2.0 * v + 0.5 * cos(v));
  }
}
#endif

static void grad_gather(const double *x, double *dx, const double *w, const int *idx, int m) {
#ifdef REFERENCE_GRADIENT
  ref_grad_gather(x, dx, w, idx, m);
#else
  __enzyme_autodiff((void *)gather, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, idx,
                    enzyme_const, m);
#endif
}

enum { N = 10, M = 23 };
static double wb[M];
static int ib[M];
static double w_gather(const double *x, void *c) { (void)c; return gather(x, wb, ib, M); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(26);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(wb, M, -1.0, 1.0);
  for (int i = 0; i < M; i++) ib[i] = (int)(rng_next() % (N - 1)); /* x[N-1] never read */
  zero_array(dx, N);
  grad_gather(x, dx, wb, ib, M);
  fd_grad_array(w_gather, x, N, NULL, fd);
  check_array("gather_grad", dx, fd, N, 1e-6, 1e-8);
  check_close("gather_unread_zero", dx[N - 1], 0.0, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
