/* A callback passed as an argument to a noinline integrator; every call site
 * passes a known function, so the target is known once the integrator is
 * inlined (the tool inlines callees itself). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(double p) {
  double d = 0.0;
  for (int part = 0; part < 2; part++) {
    double a = 0.0, b = part ? 2.0 : 1.0, h = (b - a) / 16, w = part ? 0.5 : 1.0;
    for (int k = 0; k <= 16; k++) {
      double t = a + k * h, c = (k == 0 || k == 16) ? 0.5 : 1.0;
      double dg = part ? -sin(p * t) * t * t : -t * t * exp(-p * t * t);
      d += w * h * c * dg;
    }
  }
  return d;
}
#endif

static double grad_loss(double p) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(p);
#else
  return __enzyme_autodiff((void *)loss, enzyme_out, p);
#endif
}

static double w_p(double p, void *c) { (void)c; return loss(p); }

int main(void) {
  static const double ps[] = {0.4, 1.3, 2.2};
  char name[64];
  for (int t = 0; t < 3; t++) {
    snprintf(name, sizeof name, "callback_dp_%d", t);
    check_close(name, grad_loss(ps[t]), fd_deriv(w_p, ps[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
