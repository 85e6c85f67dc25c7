/* Forward mode of tests/ad/c/libm_exp_log.c: exp, log, pow (variable and
 * constant exponents), sqrt, expm1, log1p, cbrt on entries of a dup array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double explog(const double *x) {
  return exp(x[0]) * log(x[1]) + pow(x[2], x[3]) + sqrt(x[0] * x[1]) + expm1(x[3]) +
         log1p(x[2]) + cbrt(x[1]) + pow(x[0], 3.0) + pow(x[2], 2.0) + pow(x[1], 0.5);
}

static double w_explog(const double *x, void *c) { (void)c; return explog(x); }

int main(void) {
  double x[4], v[4];
  char name[64];
  rng_seed(29);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, 3, 0.2, 2.5);
    x[3] = rng_uniform(-1.5, 1.5);
    rng_fill(v, 4, -1.0, 1.0);
    double d = __enzyme_fwddiff((void *)explog, enzyme_dup, x, v);
    snprintf(name, sizeof name, "explog_jvp_%d", t);
    check_close(name, d, fd_dir(w_explog, x, v, 4, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
