/* libm: exp, log, pow (variable and constant exponents), sqrt, expm1, log1p,
 * cbrt on entries of a dup array.
 *
 * Forward mode (-DFORWARD_MODE): exp, log, pow (variable and
 * constant exponents), sqrt, expm1, log1p, cbrt on entries of a dup array. */
#include "kernel_test.h"

__attribute__((noinline)) double explog(const double *x) {
  return exp(x[0]) * log(x[1]) + pow(x[2], x[3]) + sqrt(x[0] * x[1]) + expm1(x[3]) +
         log1p(x[2]) + cbrt(x[1]) + pow(x[0], 3.0) + pow(x[2], 2.0) + pow(x[1], 0.5);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_explog(const double *x, double *dx) {
  double sq = sqrt(x[0] * x[1]), cb = cbrt(x[1]), pw = pow(x[2], x[3]);
  dx[0] += exp(x[0]) * log(x[1]) + 0.5 * x[1] / sq + 3.0 * x[0] * x[0];
  dx[1] += exp(x[0]) / x[1] + 0.5 * x[0] / sq + 1.0 / (3.0 * cb * cb) + 0.5 / sqrt(x[1]);
  dx[2] += x[3] * pow(x[2], x[3] - 1.0) + 1.0 / (1.0 + x[2]) + 2.0 * x[2];
  dx[3] += pw * log(x[2]) + exp(x[3]);
}
#endif

static void grad_explog(const double *x, double *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_explog(x, dx);
#else
  __enzyme_autodiff((void *)explog, enzyme_dup, x, dx);
#endif
}

static double w_explog(const double *x, void *c) { (void)c; return explog(x); }

int main(void) {
  double x[4], dx[4], fd[4];
  char name[64];
  rng_seed(29);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, 3, 0.2, 2.5);
    x[3] = rng_uniform(-1.5, 1.5);
    zero_array(dx, 4);
    grad_explog(x, dx);
    fd_grad_array(w_explog, x, 4, NULL, fd);
    snprintf(name, sizeof name, "explog_grad_%d", t);
    check_array(name, dx, fd, 4, 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
