/* One noinline callee called from several sites with different activity:
 * dot(x, x), dot(x, c) and dot(c, c) (x active, c constant), and a scalar
 * helper called with an active value and with a literal. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *c, int n) {
  double xc = 0.0, cc = 0.0;
  for (int i = 0; i < n; i++) { xc += x[i] * c[i]; cc += c[i] * c[i]; }
  double k = log(1.0 + exp(3.0 * 1.5)) / 3.0;
  double dsoft = exp(2.0 * xc) / (1.0 + exp(2.0 * xc));
  for (int i = 0; i < n; i++) dx[i] += x[i] + c[i] * cc + k * dsoft * c[i];
}
#endif

static void grad_loss(const double *x, double *dx, const double *c, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, c, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, n);
#endif
}

enum { N = 7 };
static double cs[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, cs, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(104);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(cs, N, -0.5, 0.5);
  zero_array(dx, N);
  grad_loss(x, dx, cs, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("multi_callsite_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
