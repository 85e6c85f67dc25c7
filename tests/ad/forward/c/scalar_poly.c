/* Enzyme's forward-mode example f(x, y) = x y + 1/y, with both scalars dup
 * (value then tangent), one const, and unmarked doubles (dup by default). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double f(double x, double y) { return x * y + 1.0 / y; }

static double w_f(const double *v, void *ctx) {
  (void)ctx;
  return f(v[0], v[1]);
}

int main(void) {
  double df = __enzyme_fwddiff((void *)f, enzyme_dup, 3.0, 1.0, enzyme_dup, 2.0, 1.0);
  check_close("doc_example", df, 4.75, 1e-15, 0.0);
  double p[2] = {0.7, -1.3}, v[2] = {0.4, 2.5};
  double got = __enzyme_fwddiff((void *)f, enzyme_dup, p[0], v[0], enzyme_dup, p[1], v[1]);
  check_close("jvp", got, fd_dir(w_f, p, v, 2, NULL), 1e-6, 1e-9);
  double gx = __enzyme_fwddiff((void *)f, enzyme_dup, p[0], 1.0, enzyme_const, p[1]);
  check_close("const_y", gx, p[1], 1e-15, 0.0);
  double gy = __enzyme_fwddiff((void *)f, p[0], 0.0, p[1], 1.0);
  check_close("unmarked_dup", gy, p[0] - 1.0 / (p[1] * p[1]), 1e-14, 0.0);
  return test_exit();
}
