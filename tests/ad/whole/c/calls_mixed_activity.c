/* Non-inlined callees with mixed activity: an active array and a constant
 * weight array, an active scalar, a constant scalar and an int, all passed on
 * to noinline helpers (one static, so -O2 may rewrite its signature). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double term(const double *x, const double *w, double a, double c,
                                      int i) {
  return w[i] * sin(a * x[i]) + c * a * x[i] * x[i];
}

__attribute__((noinline)) static double damp(double a, double k) { return exp(-k * a * a); }

__attribute__((noinline)) double loss(const double *x, const double *w, double a, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += term(x, w, a, 0.5, i);
  return s * damp(a, 0.3);
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *x, double *dx, const double *w, double a, int n) {
  double s = 0.0, ds_da = 0.0, d = exp(-0.3 * a * a);
  for (int i = 0; i < n; i++) {
    s += w[i] * sin(a * x[i]) + 0.5 * a * x[i] * x[i];
    ds_da += w[i] * x[i] * cos(a * x[i]) + 0.5 * x[i] * x[i];
    dx[i] += d * (w[i] * a * cos(a * x[i]) + a * x[i]);
  }
  return d * ds_da + s * d * (-0.6 * a);
}
#endif

static double grad_loss(const double *x, double *dx, const double *w, double a, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(x, dx, w, a, n);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_out, a,
                           enzyme_const, n);
#endif
}

enum { N = 9 };
static double xs[N], ws[N], as = 0.8;
static double w_x(const double *x, void *c) { (void)c; return loss(x, ws, as, N); }
static double w_a(double a, void *c) { (void)c; return loss(xs, ws, a, N); }

int main(void) {
  double dx[N], fd[N];
  rng_seed(101);
  rng_fill(xs, N, -1.5, 1.5);
  rng_fill(ws, N, -1.0, 1.0);
  zero_array(dx, N);
  double da = grad_loss(xs, dx, ws, as, N);
  fd_grad_array(w_x, xs, N, NULL, fd);
  check_array("mixed_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("mixed_da", da, fd_deriv(w_a, as, NULL), 1e-6, 1e-9);
  return test_exit();
}
