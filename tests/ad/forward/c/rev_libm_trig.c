/* Forward mode of tests/ad/c/libm_trig.c: sin, cos, tan, atan2, hypot on
 * entries of a dup array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double trig(const double *x) {
  return sin(x[0]) * cos(x[1]) + tan(x[2]) + atan2(x[3], x[0]) + hypot(x[1], x[3]) +
         0.5 * sin(x[2] * x[3]);
}

static double w_trig(const double *x, void *c) { (void)c; return trig(x); }

int main(void) {
  double x[4], v[4];
  char name[64];
  rng_seed(28);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, 4, -1.2, 1.2);
    rng_fill(v, 4, -1.0, 1.0);
    double d = __enzyme_fwddiff((void *)trig, enzyme_dup, x, v);
    snprintf(name, sizeof name, "trig_jvp_%d", t);
    check_close(name, d, fd_dir(w_trig, x, v, 4, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
