/* A while loop to a tolerance (Newton for the cube root of a, from x0): the
 * tangent of the converged iterate is d cbrt(a) = da / (3 cbrt(a)^2). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double newton_cbrt(double a, double x0) {
  double x = x0;
  int it = 0;
  while (fabs(x * x * x - a) > 1e-14 * a && it < 100) {
    x = x - (x * x * x - a) / (3.0 * x * x);
    it++;
  }
  return x;
}

int main(void) {
  double as[3] = {2.0, 27.0, 0.3};
  char name[32];
  for (int k = 0; k < 3; k++) {
    double a = as[k];
    double t = __enzyme_fwddiff((void *)newton_cbrt, enzyme_dup, a, 1.0, enzyme_const, 1.0);
    double c = cbrt(a);
    snprintf(name, sizeof name, "cbrt_%d", k);
    check_close(name, t, 1.0 / (3.0 * c * c), 1e-8, 1e-10);
  }
  /* the starting point's tangent vanishes at convergence */
  double t0 = __enzyme_fwddiff((void *)newton_cbrt, enzyme_const, 5.0, enzyme_dup, 1.0, 1.0);
  check_close("x0_tangent", t0, 0.0, 0.0, 1e-8);
  return test_exit();
}
