/* Reductions: Euclidean norm (sqrt of a sum of squares) and a weighted sum
 * with an enzyme_const weight array.
 *
 * Forward mode (-DFORWARD_MODE): the Euclidean norm (sqrt of a sum of
 * squares) and a weighted sum of x |x| with an enzyme_const weight array. */
#include "kernel_test.h"

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

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_norm2(const double *x, double *dx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  double r = sqrt(s);
  for (int i = 0; i < n; i++) dx[i] += x[i] / r;
}
static void ref_grad_wsum(const double *x, double *dx, const double *w, int n) {
  for (int i = 0; i < n; i++) dx[i] += 2.0 * w[i] * fabs(x[i]);
}
#endif

static void grad_norm2(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_norm2(x, dx, n);
#else
  __enzyme_autodiff((void *)norm2, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

static void grad_wsum(const double *x, double *dx, const double *w, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_wsum(x, dx, w, n);
#else
  __enzyme_autodiff((void *)wsum, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
}

enum { N = 25 };
static double w_norm2(const double *x, void *ctx) { (void)ctx; return norm2(x, N); }
static double w_wsum(const double *x, void *ctx) { return wsum(x, (const double *)ctx, N); }

int main(void) {
  double x[N], w[N], dx[N], fd[N];
  rng_seed(3);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(w, N, 0.0, 2.0);
  zero_array(dx, N);
  grad_norm2(x, dx, N);
  fd_grad_array(w_norm2, x, N, NULL, fd);
  check_array("norm2_grad", dx, fd, N, 1e-6, 1e-8);
  zero_array(dx, N);
  grad_wsum(x, dx, w, N);
  fd_grad_array(w_wsum, x, N, w, fd);
  check_array("wsum_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
