/* Numerically stable log-sum-exp (max found with a compare-and-select loop);
 * its gradient is the softmax.
 *
 * Forward mode (-DFORWARD_MODE): numerically stable log-sum-exp (max
 * by compare-and-select); its tangent is <softmax(x), v>, also at large
 * offsets. */
#include "kernel_test.h"

__attribute__((noinline)) double logsumexp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    if (x[i] > m) m = x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 31 };
static double w_lse(const double *x, void *c) { (void)c; return logsumexp(x, N); }

int main(void) {
  double x[N], v[N], g[N];
  char name[64];
  rng_seed(31);
  for (int t = 0; t < 3; t++) {
    rng_fill(x, N, -3.0 + 100.0 * t, 3.0 + 100.0 * t); /* large offsets stay stable */
    rng_fill(v, N, -1.0, 1.0);
    double d = __enzyme_fwddiff((void *)logsumexp, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "logsumexp_jvp_%d", t);
    check_close(name, d, fd_dir(w_lse, x, v, N, NULL), 1e-5, 1e-8);
    double lse = logsumexp(x, N);
    for (int i = 0; i < N; i++) g[i] = exp(x[i] - lse);
    snprintf(name, sizeof name, "logsumexp_softmax_dot_v_%d", t);
    check_close(name, d, dot_dir(g, v, N), 1e-12, 1e-13);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_logsumexp(const double *x, double *dx, int n) {
  double l = logsumexp(x, n);
  for (int i = 0; i < n; i++) dx[i] += exp(x[i] - l);
}
#endif

static void grad_logsumexp(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_logsumexp(x, dx, n);
#else
  __enzyme_autodiff((void *)logsumexp, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 31 };
static double w_lse(const double *x, void *c) { (void)c; return logsumexp(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  char name[64];
  rng_seed(31);
  for (int t = 0; t < 3; t++) {
    rng_fill(x, N, -3.0 + 100.0 * t, 3.0 + 100.0 * t); /* large offsets stay stable */
    zero_array(dx, N);
    grad_logsumexp(x, dx, N);
    fd_grad_array(w_lse, x, N, NULL, fd);
    snprintf(name, sizeof name, "logsumexp_grad_%d", t);
    check_array(name, dx, fd, N, 1e-5, 1e-8);
    double sum = 0.0;
    for (int i = 0; i < N; i++) sum += dx[i];
    snprintf(name, sizeof name, "logsumexp_grad_sums_to_1_%d", t);
    check_close(name, sum, 1.0, 1e-12, 0.0);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
