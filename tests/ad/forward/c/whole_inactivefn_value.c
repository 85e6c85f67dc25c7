/* Forward mode of tests/ad/whole/c/inactivefn_value.c: a function whose result
 * depends on the active input, declared inactive with __enzyme_inactivefn;
 * its result carries no tangent (checked against differences with it frozen). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

enum { N = 7 };
static double frozen;
static double w_frozen(const double *x, void *c) {
  (void)c;
  double acc = 0.0;
  for (int i = 0; i < N; i++) acc += x[i] * x[i];
  return acc * frozen;
}

int main(void) {
  double x[N], v[N];
  rng_seed(131);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  int before = diag_calls;
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
  check_close("inactive_value_calls", diag_calls - before, 1.0, 0.0, 0.0);
  frozen = diag_scale(x, N);
  check_close("inactive_value_jvp", t, fd_dir(w_frozen, x, v, N, NULL), 1e-6, 1e-9);
  return test_exit();
}
