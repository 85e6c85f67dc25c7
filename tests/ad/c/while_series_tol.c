/* A while loop that runs until a tolerance is met: exp(x) by its Taylor
 * series, and the arctangent by a convergent series after range reduction.
 *
 * Forward mode (-DFORWARD_MODE): loops that run until a
 * tolerance is met, exp(x) by its Taylor series and atan(x) by its series;
 * their tangents are exp(x) dx and dx / (1 + x^2). */
#include "kernel_test.h"

__attribute__((noinline)) double exp_series(double x) {
  double term = 1.0, sum = 1.0;
  int k = 1;
  while (fabs(term) > 1e-17 * fabs(sum)) {
    term *= x / k;
    sum += term;
    k++;
  }
  return sum;
}

/* atan(x) for |x| < 1 via atan(x) = sum (-1)^k x^(2k+1) / (2k+1) */
__attribute__((noinline)) double atan_series(double x) {
  double x2 = x * x, pw = x, sum = 0.0;
  int k = 0;
  do {
    double term = pw / (2 * k + 1);
    sum += (k & 1) ? -term : term;
    pw *= x2;
    k++;
  } while (fabs(pw) > 1e-18);
  return sum;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_exp(double x, void *ctx) { (void)ctx; return exp_series(x); }
static double w_atan(double x, void *ctx) { (void)ctx; return atan_series(x); }

int main(void) {
  static const double xs[] = {-2.0, -0.3, 0.5, 1.7, 3.2};
  static const double as[] = {-0.6, -0.1, 0.25, 0.45, 0.7};
  char name[64];
  for (int k = 0; k < 5; k++) {
    double dx = 0.5 + 0.25 * k;
    double te = __enzyme_fwddiff((void *)exp_series, enzyme_dup, xs[k], dx);
    snprintf(name, sizeof name, "exp_series_%d", k);
    check_close(name, te, dx * fd_deriv(w_exp, xs[k], NULL), 1e-6, 1e-9);
    snprintf(name, sizeof name, "exp_series_exact_%d", k);
    check_close(name, te, dx * exp(xs[k]), 1e-12, 1e-14);
    double ta = __enzyme_fwddiff((void *)atan_series, enzyme_dup, as[k], dx);
    snprintf(name, sizeof name, "atan_series_%d", k);
    check_close(name, ta, dx * fd_deriv(w_atan, as[k], NULL), 1e-6, 1e-9);
    snprintf(name, sizeof name, "atan_series_exact_%d", k);
    check_close(name, ta, dx / (1.0 + as[k] * as[k]), 1e-12, 1e-14);
  }
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_exp_series(double x) { return exp(x); }
static double ref_grad_atan_series(double x) { return 1.0 / (1.0 + x * x); }
#endif

static double grad_exp_series(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_exp_series(x);
#else
  return __enzyme_autodiff((void *)exp_series, enzyme_out, x);
#endif
}
static double grad_atan_series(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_atan_series(x);
#else
  return __enzyme_autodiff((void *)atan_series, enzyme_out, x);
#endif
}

static double w_exp(double x, void *ctx) { (void)ctx; return exp_series(x); }
static double w_atan(double x, void *ctx) { (void)ctx; return atan_series(x); }

int main(void) {
  static const double xs[] = {-2.0, -0.3, 0.5, 1.7, 3.2};
  static const double as[] = {-0.6, -0.1, 0.25, 0.45, 0.7};
  char name[64];
  for (int k = 0; k < 5; k++) {
    snprintf(name, sizeof name, "exp_series_%d", k);
    check_close(name, grad_exp_series(xs[k]), fd_deriv(w_exp, xs[k], NULL), 1e-6, 1e-9);
    snprintf(name, sizeof name, "atan_series_%d", k);
    check_close(name, grad_atan_series(as[k]), fd_deriv(w_atan, as[k], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
