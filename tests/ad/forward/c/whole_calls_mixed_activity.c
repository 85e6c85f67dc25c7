/* Forward mode of tests/ad/whole/c/calls_mixed_activity.c: non-inlined callees
 * with mixed activity (an active array and scalar, a const weight array, a
 * const scalar and an int passed on). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

enum { N = 9 };
static double ws[N];
/* p = x, a */
static double w_p(const double *p, void *c) { (void)c; return loss(p, ws, p[N], N); }

int main(void) {
  double p[N + 1], v[N + 1];
  char name[32];
  rng_seed(101);
  rng_fill(p, N, -1.5, 1.5);
  rng_fill(ws, N, -1.0, 1.0);
  p[N] = 0.8;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, p, v, enzyme_const, ws, enzyme_dup,
                                p[N], v[N], enzyme_const, N);
    snprintf(name, sizeof name, "mixed_jvp_%d", d);
    check_close(name, t, fd_dir(w_p, p, v, N + 1, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
