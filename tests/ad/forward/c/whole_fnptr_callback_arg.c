/* Forward mode of tests/ad/whole/c/fnptr_callback_arg.c: a callback passed as
 * an argument to a noinline integrator; every call site passes a known
 * function. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef double (*integrand)(double t, double p);

static double g_exp(double t, double p) { return exp(-p * t * t); }
static double g_cos(double t, double p) { return cos(p * t) * t; }

__attribute__((noinline)) static double integrate(integrand fn, double p, double a, double b,
                                                  int m) {
  double h = (b - a) / m, s = 0.5 * (fn(a, p) + fn(b, p));
  for (int k = 1; k < m; k++) s += fn(a + k * h, p);
  return s * h;
}
__attribute__((noinline)) double loss(double p) {
  return integrate(g_exp, p, 0.0, 1.0, 16) + 0.5 * integrate(g_cos, p, 0.0, 2.0, 16);
}

static double w_p(double p, void *c) { (void)c; return loss(p); }

int main(void) {
  static const double ps[] = {0.4, 1.3, 2.2};
  char name[64];
  for (int t = 0; t < 3; t++) {
    double d = __enzyme_fwddiff((void *)loss, enzyme_dup, ps[t], 0.6);
    snprintf(name, sizeof name, "callback_jvp_%d", t);
    check_close(name, d, 0.6 * fd_deriv(w_p, ps[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
