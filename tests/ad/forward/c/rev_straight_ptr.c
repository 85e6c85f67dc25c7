/* Forward mode of tests/ad/c/straight_ptr.c: straight-line code reading a dup
 * array; the tangent is linear in the direction (checked with 2v). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double mix4(const double *x) {
  double a = x[0] * x[1];
  double b = x[2] / x[3];
  double c = (x[1] - x[2]) * (x[1] + x[2]);
  return a + b - x[0] * x[0] * x[3] + c * a;
}

static double w_mix4(const double *x, void *ctx) { (void)ctx; return mix4(x); }

int main(void) {
  double x[4], v[4], v2[4];
  rng_seed(11);
  rng_fill(x, 4, 0.5, 2.0);
  rng_fill(v, 4, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)mix4, enzyme_dup, x, v);
  check_close("mix4_jvp", t, fd_dir(w_mix4, x, v, 4, NULL), 1e-6, 1e-8);
  for (int i = 0; i < 4; i++) v2[i] = 2.0 * v[i];
  double t2 = __enzyme_fwddiff((void *)mix4, enzyme_dup, x, v2);
  check_close("mix4_jvp_linear", t2, 2.0 * t, 1e-14, 1e-15);
  return test_exit();
}
