/* Forward mode of tests/ad/c/loop_norm.c: the Euclidean norm (sqrt of a sum of
 * squares) and a weighted sum of x |x| with an enzyme_const weight array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double norm2(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

__attribute__((noinline)) double wsum(const double *x, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * x[i] * fabs(x[i]);
  return s;
}

enum { N = 25 };
static double w_norm2(const double *x, void *ctx) { (void)ctx; return norm2(x, N); }
static double w_wsum(const double *x, void *ctx) { return wsum(x, (const double *)ctx, N); }

int main(void) {
  double x[N], w[N], v[N], g[N];
  rng_seed(3);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(w, N, 0.0, 2.0);
  rng_fill(v, N, -1.0, 1.0);
  double tn = __enzyme_fwddiff((void *)norm2, enzyme_dup, x, v, enzyme_const, N);
  check_close("norm2_jvp", tn, fd_dir(w_norm2, x, v, N, NULL), 1e-6, 1e-8);
  double nx = norm2(x, N);
  for (int i = 0; i < N; i++) g[i] = x[i] / nx;
  check_close("norm2_grad_dot_v", tn, dot_dir(g, v, N), 1e-12, 1e-13);
  double tw = __enzyme_fwddiff((void *)wsum, enzyme_dup, x, v, enzyme_const, w, enzyme_const, N);
  check_close("wsum_jvp", tw, fd_dir(w_wsum, x, v, N, w), 1e-6, 1e-8);
  for (int i = 0; i < N; i++) g[i] = 2.0 * w[i] * fabs(x[i]);
  check_close("wsum_grad_dot_v", tw, dot_dir(g, v, N), 1e-12, 1e-13);
  return test_exit();
}
