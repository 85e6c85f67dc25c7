/* Fixed-point iteration x <- a cos(x) + b until the update is below a
 * tolerance (data-dependent trip count); derivatives w.r.t. a and b. */
#include "enzyme_test.h"

typedef struct { double da, db; } grad2;
grad2 __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double fixed_point(double a, double b) {
  double x = b, delta = 1.0;
  int it = 0;
  while (fabs(delta) > 1e-15 && it < 1000) {
    double xn = a * cos(x) + b;
    delta = xn - x;
    x = xn;
    it++;
  }
  return x;
}

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_fixed_point(double a, double b) {
  double x = fixed_point(a, b);
  double den = 1.0 + a * sin(x);
  grad2 g = {cos(x) / den, 1.0 / den};
  return g;
}
#endif

static grad2 grad_fixed_point(double a, double b) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_fixed_point(a, b);
#else
  return __enzyme_autodiff((void *)fixed_point, enzyme_out, a, enzyme_out, b);
#endif
}

static double w_a(double a, void *p) { return fixed_point(a, *(double *)p); }
static double w_b(double b, void *p) { return fixed_point(*(double *)p, b); }

int main(void) {
  static const double ab[][2] = {{0.5, 0.3}, {0.7, -0.4}, {0.25, 1.0}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    double a = ab[k][0], b = ab[k][1];
    grad2 g = grad_fixed_point(a, b);
    snprintf(name, sizeof name, "fixed_point_da_%d", k);
    check_close(name, g.da, fd_deriv(w_a, a, &b), 1e-6, 1e-9);
    snprintf(name, sizeof name, "fixed_point_db_%d", k);
    check_close(name, g.db, fd_deriv(w_b, b, &a), 1e-6, 1e-9);
  }
  return test_exit();
}
