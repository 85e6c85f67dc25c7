/* Forward mode of tests/ad/whole/c/recursion_direct.c: direct recursion that
 * LLVM cannot turn into a loop, r_k = sin(r_{k-1}) + 0.5 x, r_0 = x, at three
 * depths. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double rnest(double x, int n) {
  if (n == 0) return x;
  return sin(rnest(x, n - 1)) + 0.5 * x;
}

static int depth;
static double w_x(double x, void *c) { (void)c; return rnest(x, depth); }

int main(void) {
  static const double xs[] = {0.3, -1.1, 2.4};
  static const int ds[] = {1, 5, 12};
  char name[64];
  for (int t = 0; t < 3; t++) {
    depth = ds[t];
    double d = __enzyme_fwddiff((void *)rnest, enzyme_dup, xs[t], 0.75, enzyme_const, depth);
    snprintf(name, sizeof name, "rnest_jvp_depth%d", depth);
    check_close(name, d, 0.75 * fd_deriv(w_x, xs[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
