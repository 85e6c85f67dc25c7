/* Forward mode of tests/ad/whole/c/custom_gradient_square.c: a custom forward derivative
 * registered in Enzyme's ABI, `__enzyme_register_derivative_square = {square, square_fwd}`.
 * square() takes its input and output by pointer; square_fwd() takes each pointer followed by
 * its shadow, writes the primal result and its tangent.  The registered tangent is 3x the
 * true one ON PURPOSE, so the result proves that the rule was called:
 *   loss(x) = sin(square(x)) + x,  expected tangent = (3 cos(x^2) 2x + 1) dx. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void square(const double *src, double *dest) { *dest = *src * *src; }

int fwd_calls = 0;

void square_fwd(const double *src, const double *d_src, double *dest, double *d_dest) {
  fwd_calls++;
  *dest = *src * *src;
  *d_dest = 3.0 * (2.0 * *src * *d_src); /* deliberately 3x the true tangent */
}

void *__enzyme_register_derivative_square[2] = {(void *)square, (void *)square_fwd};

double loss(double x) {
  double y;
  square(&x, &y);
  return sin(y) + x;
}

static double w_x(double x, void *c) { (void)c; return loss(x); }

int main(void) {
  static const double xs[] = {0.6, -1.1, 1.7};
  static const double dxs[] = {1.0, -0.5, 2.0};
  char name[64];
  for (int t = 0; t < 3; t++) {
    double x = xs[t], dx = dxs[t];
    int c0 = fwd_calls;
    double got = __enzyme_fwddiff((void *)loss, enzyme_dup, x, dx);
    double truth = fd_deriv(w_x, x, NULL); /* true derivative of the primal */
    snprintf(name, sizeof name, "fd_matches_analytic_%d", t);
    check_close(name, truth, cos(x * x) * 2.0 * x + 1.0, 1e-6, 1e-9);
    snprintf(name, sizeof name, "custom_derivative_used_%d", t);
    check_close(name, got, (3.0 * (truth - 1.0) + 1.0) * dx, 1e-6, 1e-9);
    snprintf(name, sizeof name, "square_fwd_called_once_%d", t);
    check_close(name, fwd_calls - c0, 1.0, 0.0, 0.0);
  }
  return test_exit();
}
