/* Forward mode of tests/ad/whole/c/recursion_tree.c: tree recursion with two
 * recursive calls and scalar arguments,
 * T(x, n) = 0.5 sin(T(x, n-1)) + 0.25 x T(1.1 x, n-2), T(x, n <= 1) = x. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double tree(double x, int n) {
  if (n <= 1) return x;
  return 0.5 * sin(tree(x, n - 1)) + 0.25 * x * tree(1.1 * x, n - 2);
}

static int depth;
static double w_x(double x, void *c) { (void)c; return tree(x, depth); }

int main(void) {
  static const double xs[] = {0.7, -1.3, 1.9};
  static const int ds[] = {2, 6, 10};
  char name[64];
  for (int t = 0; t < 3; t++) {
    depth = ds[t];
    double d = __enzyme_fwddiff((void *)tree, enzyme_dup, xs[t], -1.25, enzyme_const, depth);
    snprintf(name, sizeof name, "tree_jvp_depth%d", depth);
    check_close(name, d, -1.25 * fd_deriv(w_x, xs[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
