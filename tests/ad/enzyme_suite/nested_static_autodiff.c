/* A gradient of a function that itself calls __enzyme_autodiff, where the inner function is
 * emitted after its caller (static functions follow main): the inner call is lowered first
 * (Enzyme's ReverseMode/perturbation.cpp). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

static double f(double x, double y) { return x * y * y; }

/* x * d/dy f(x, y) at y = 3: x * 2xy = 6 x^2 */
static double df(double x) {
  return x * __enzyme_autodiff((void *)f, enzyme_const, x, 3.0);
}

int main(void) {
  check_close("inner", df(5.0), 150.0, 1e-12, 0);
  check_close("outer", __enzyme_autodiff((void *)df, 5.0), 60.0, 1e-12, 0);
  return test_exit();
}
