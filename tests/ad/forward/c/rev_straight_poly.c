/* Forward mode of tests/ad/c/straight_poly.c: straight-line arithmetic in two
 * dup scalars, along the two axes and a mixed direction. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double poly2(double x, double y) {
  double t = x * y;
  return 3.0 * t * x + x / y - 2.0 * y * y * y + 0.5 * x - 7.0 * t + 1.25;
}

static double w_poly2(const double *p, void *c) { (void)c; return poly2(p[0], p[1]); }

int main(void) {
  static const double pts[][2] = {{1.5, 0.75}, {-2.0, 3.0}, {0.1, -1.7}, {4.0, 2.5}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {-0.3, 0.9}};
  char name[64];
  for (int k = 0; k < 4; k++) {
    double x = pts[k][0], y = pts[k][1];
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)poly2, enzyme_dup, x, dirs[d][0], enzyme_dup, y,
                                  dirs[d][1]);
      snprintf(name, sizeof name, "poly2_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_poly2, pts[k], dirs[d], 2, NULL), 1e-6, 1e-8);
      double gx = 6.0 * x * y + 1.0 / y + 0.5 - 7.0 * y;
      double gy = 3.0 * x * x - x / (y * y) - 6.0 * y * y - 7.0 * x;
      snprintf(name, sizeof name, "poly2_exact_%d_%d", k, d);
      check_close(name, t, gx * dirs[d][0] + gy * dirs[d][1], 1e-12, 1e-12);
    }
  }
  return test_exit();
}
