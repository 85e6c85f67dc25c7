/* Numerically stable log-sum-exp (max found with a compare-and-select loop);
 * its gradient is the softmax. */
#include "enzyme_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double logsumexp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    if (x[i] > m) m = x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

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
