/* Tree recursion with two recursive calls and scalar arguments (no loop form):
 * T(x, n) = x                                        for n <= 1
 *         = 0.5 sin(T(x, n-1)) + 0.25 x T(1.1 x, n-2)  otherwise. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double tree(double x, int n) {
  if (n <= 1) return x;
  return 0.5 * sin(tree(x, n - 1)) + 0.25 * x * tree(1.1 * x, n - 2);
}

#ifdef REFERENCE_GRADIENT
/* value and derivative together (hand-written forward mode) */
static double tree_d(double x, int n, double *d) {
  if (n <= 1) { *d = 1.0; return x; }
  double d1, d2;
  double t1 = tree_d(x, n - 1, &d1);
  double t2 = tree_d(1.1 * x, n - 2, &d2);
  *d = 0.5 * cos(t1) * d1 + 0.25 * t2 + 0.25 * x * 1.1 * d2;
  return 0.5 * sin(t1) + 0.25 * x * t2;
}
static double ref_grad_tree(double x, int n) {
  double d;
  tree_d(x, n, &d);
  return d;
}
#endif

static double grad_tree(double x, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_tree(x, n);
#else
  return __enzyme_autodiff((void *)tree, enzyme_out, x, enzyme_const, n);
#endif
}

static int depth;
static double w_x(double x, void *c) { (void)c; return tree(x, depth); }

int main(void) {
  static const double xs[] = {0.7, -1.3, 1.9};
  static const int ds[] = {2, 6, 10};
  char name[64];
  for (int t = 0; t < 3; t++) {
    depth = ds[t];
    snprintf(name, sizeof name, "tree_dx_depth%d", depth);
    check_close(name, grad_tree(xs[t], depth), fd_deriv(w_x, xs[t], NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
