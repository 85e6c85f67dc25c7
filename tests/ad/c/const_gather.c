/* enzyme_const arrays: a constant weight array and a constant int index array
 * used for a gather with repeated indices (gradient contributions add up). */
#include "enzyme_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double gather(const double *x, const double *w, const int *idx,
                                        int m) {
  double s = 0.0;
  for (int i = 0; i < m; i++) {
    double v = x[idx[i]];
    s += w[i] * v * v + w[i] * sin(v) * 0.5;
  }
  return s;
}

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
