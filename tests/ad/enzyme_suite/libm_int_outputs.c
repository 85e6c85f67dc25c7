/* libm functions with an integer output through a pointer. frexp: the mantissa's derivative
 * is 2^-e = m/x; ldexp(frexp(x, &e), e) == x (Enzyme's ReverseMode/frexp.c). remquo: the
 * remainder x - n y has derivatives 1 and -n. */
#include <math.h>
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);
typedef struct {
  double dx, dy;
} Pair;
Pair __enzyme_autodiff_pair(void *, ...);

double mantissa(double x) {
  int e;
  return frexp(x, &e);
}

double roundtrip(double x) {
  int e;
  double m = frexp(x, &e);
  return ldexp(m, e) * m;
}

double remainder_of(double x, double y) {
  int q;
  double r = remquo(x, y, &q);
  return r * r;
}

int main(void) {
  const double xs[] = {0.9, 1.0, 1.2, 2.3, 33.0, -0.26, -1.0, -33.0};
  for (int i = 0; i < 8; i++) {
    double x = xs[i];
    int e;
    double m = frexp(x, &e);
    check_close("mantissa", __enzyme_autodiff((void *)mantissa, x), m / x, 1e-12, 1e-14);
    /* d/dx (x * m(x)) = m + x * m/x = 2m */
    check_close("roundtrip", __enzyme_autodiff((void *)roundtrip, x), 2 * m, 1e-12, 1e-14);
  }
  check_close("at zero", __enzyme_autodiff((void *)mantissa, 0.0), 1.0, 0, 0);
  const double ys[] = {0.7, 1.3, 2.0};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 3; j++) {
      double x = xs[i] / 4, y = ys[j];
      int q;
      double r = remquo(x, y, &q);
      double n = rint((x - r) / y);
      Pair d = __enzyme_autodiff_pair((void *)remainder_of, x, y);
      check_close("remquo dx", d.dx, 2 * r, 1e-12, 1e-14);
      check_close("remquo dy", d.dy, -2 * r * n, 1e-12, 1e-14);
    }
  return test_exit();
}
