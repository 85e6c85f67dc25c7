/* Forward mode of tests/ad/c/while_fixed_point.c: the fixed-point iteration
 * x <- a cos(x) + b until the update is below a tolerance (data-dependent
 * trip count), with tangents on a and b. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

static double w_fp(const double *p, void *c) { (void)c; return fixed_point(p[0], p[1]); }

int main(void) {
  static const double ab[][2] = {{0.5, 0.3}, {0.7, -0.4}, {0.25, 1.0}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {0.8, 0.6}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)fixed_point, enzyme_dup, ab[k][0], dirs[d][0],
                                  enzyme_dup, ab[k][1], dirs[d][1]);
      snprintf(name, sizeof name, "fixed_point_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_fp, ab[k], dirs[d], 2, NULL), 1e-6, 1e-9);
    }
    /* implicit function theorem: dx = (cos(x) da + db) / (1 + a sin(x)) */
    double x = fixed_point(ab[k][0], ab[k][1]);
    double t = __enzyme_fwddiff((void *)fixed_point, enzyme_dup, ab[k][0], 0.8, enzyme_dup,
                                ab[k][1], 0.6);
    snprintf(name, sizeof name, "fixed_point_ift_%d", k);
    check_close(name, t, (0.8 * cos(x) + 0.6) / (1.0 + ab[k][0] * sin(x)), 1e-9, 1e-12);
  }
  return test_exit();
}
