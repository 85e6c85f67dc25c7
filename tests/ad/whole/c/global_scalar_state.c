/* A mutable global scalar carries active state between two noinline calls:
 * accumulate() adds into g_acc, finish() reads it.  Not supported by Enzyme
 * without a shadow global; may not be supported yet. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

double g_acc;

__attribute__((noinline)) void accumulate(double v) { g_acc += v * v; }
__attribute__((noinline)) double finish(void) { return sqrt(1.0 + g_acc); }
__attribute__((noinline)) double loss(const double *x, int n) {
  g_acc = 0.0;
  for (int i = 0; i < n; i++) accumulate(x[i] + 0.5 * x[(i + 1) % n]);
  return finish();
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double a = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i] + 0.5 * x[(i + 1) % n];
    a += v * v;
  }
  g_acc = a;
  double g = 0.5 / sqrt(1.0 + a);
  for (int i = 0; i < n; i++) {
    double v = x[i] + 0.5 * x[(i + 1) % n];
    dx[i] += g * 2.0 * v;
    dx[(i + 1) % n] += g * v;
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 8 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(125);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("global_scalar_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
