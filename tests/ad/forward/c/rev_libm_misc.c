/* Forward mode of tests/ad/c/libm_misc.c: fabs, fmax, fmin, tanh, erf on two
 * dup scalars; the test points avoid the kinks. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double misc(double a, double b) {
  return 0.5 * fabs(a - b) + fmax(a, b * b) + fmin(a * b, 1.0) + tanh(a * b) +
         erf(a - 0.3 * b);
}

static double w_misc(const double *p, void *c) { (void)c; return misc(p[0], p[1]); }

int main(void) {
  static const double pts[][2] = {{0.7, 0.4}, {-0.5, 1.2}, {2.0, 1.1}, {0.3, -2.0}};
  double v[2];
  char name[64];
  rng_seed(47);
  for (int k = 0; k < 4; k++) {
    rng_fill(v, 2, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)misc, enzyme_dup, pts[k][0], v[0], enzyme_dup,
                                pts[k][1], v[1]);
    snprintf(name, sizeof name, "misc_jvp_%d", k);
    check_close(name, t, fd_dir(w_misc, pts[k], v, 2, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
