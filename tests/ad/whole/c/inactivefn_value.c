/* A function whose result DOES depend on the active input, declared inactive
 * with __enzyme_inactivefn: its result must be treated as a constant.
 *   loss(x) = diag(x) * sum x_i^2,  diag(x) = 1 + mean |x_i|  (inactive)
 *   expected dx_i = diag(x) * 2 x_i  (not the full derivative). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

int diag_calls = 0;

__attribute__((noinline)) double diag_scale(const double *x, int n) {
  diag_calls++;
  double m = 0.0;
  for (int i = 0; i < n; i++) m += fabs(x[i]);
  return 1.0 + m / n;
}

void *__enzyme_inactivefn[] = {(void *)diag_scale};

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = diag_scale(x, n), acc = 0.0;
  for (int i = 0; i < n; i++) acc += x[i] * x[i];
  return acc * s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double s = diag_scale(x, n);
  for (int i = 0; i < n; i++) dx[i] += s * 2.0 * x[i];
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 7 };
static double frozen;
static double w_frozen(const double *x, void *c) {
  (void)c;
  double acc = 0.0;
  for (int i = 0; i < N; i++) acc += x[i] * x[i];
  return acc * frozen;
}

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(131);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  int before = diag_calls;
  grad_loss(x, dx, N);
  check_close("inactive_value_calls", diag_calls - before, 1.0, 0.0, 0.0);
  frozen = diag_scale(x, N);
  fd_grad_array(w_frozen, x, N, NULL, fd);
  check_array("inactive_value_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
