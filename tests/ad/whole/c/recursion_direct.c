/* Direct recursion that LLVM cannot turn into a loop: the recursive result
 * goes through sin() before being combined, r_k = sin(r_{k-1}) + 0.5 x,
 * r_0 = x.  The depth is a constant argument. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double rnest(double x, int n) {
  if (n == 0) return x;
  return sin(rnest(x, n - 1)) + 0.5 * x;
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_rnest(double x, int n) {
  double r = x, d = 1.0;
  for (int k = 1; k <= n; k++) {
    d = cos(r) * d + 0.5;
    r = sin(r) + 0.5 * x;
  }
  return d;
}
#endif

static double grad_rnest(double x, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_rnest(x, n);
#else
  return __enzyme_autodiff((void *)rnest, enzyme_out, x, enzyme_const, n);
#endif
}

static int depth;
static double w_x(double x, void *c) { (void)c; return rnest(x, depth); }

int main(void) {
  static const double xs[] = {0.3, -1.1, 2.4};
  static const int ds[] = {1, 5, 12};
  char name[64];
  for (int t = 0; t < 3; t++) {
    depth = ds[t];
    snprintf(name, sizeof name, "rnest_dx_depth%d", depth);
    check_close(name, grad_rnest(xs[t], depth), fd_deriv(w_x, xs[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
