/* Straight-line arithmetic in two active scalars; both gradients come back
 * through a struct return (two enzyme_out arguments).
 *
 * Forward mode (-DFORWARD_MODE): straight-line arithmetic in two
 * dup scalars, along the two axes and a mixed direction. */
#include "kernel_test.h"

__attribute__((noinline)) double poly2(double x, double y) {
  double t = x * y;
  return 3.0 * t * x + x / y - 2.0 * y * y * y + 0.5 * x - 7.0 * t + 1.25;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_poly2(const double *p, void *c) { (void)c; return poly2(p[0], p[1]); }

int main(void) {
  static const double pts[][2] = {{1.5, 0.75}, {-2.0, 3.0}, {0.1, -1.7}, {4.0, 2.5}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {-0.3, 0.9}};
  char name[64];
  for (int k = 0; k < 4; k++) {
    double x = pts[k][0], y = pts[k][1];
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)poly2, enzyme_dup, x, dirs[d][0], enzyme_dup, y,
                                  dirs[d][1]);
      snprintf(name, sizeof name, "poly2_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_poly2, pts[k], dirs[d], 2, NULL), 1e-6, 1e-8);
      double gx = 6.0 * x * y + 1.0 / y + 0.5 - 7.0 * y;
      double gy = 3.0 * x * x - x / (y * y) - 6.0 * y * y - 7.0 * x;
      snprintf(name, sizeof name, "poly2_exact_%d_%d", k, d);
      check_close(name, t, gx * dirs[d][0] + gy * dirs[d][1], 1e-12, 1e-12);
    }
  }
  return test_exit();
}

#else /* reverse mode */
typedef struct { double a, b; } grad2;
grad2 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_poly2(double x, double y) {
  grad2 g;
  g.a = 6.0 * x * y + 1.0 / y + 0.5 - 7.0 * y;
  g.b = 3.0 * x * x - x / (y * y) - 6.0 * y * y - 7.0 * x;
  return g;
}
#endif

static grad2 grad_poly2(double x, double y) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_poly2(x, y);
#else
  return __enzyme_autodiff((void *)poly2, enzyme_out, x, enzyme_out, y);
#endif
}

static double px(double x, void *ctx) { return poly2(x, *(double *)ctx); }
static double py(double y, void *ctx) { return poly2(*(double *)ctx, y); }

int main(void) {
  static const double pts[][2] = {{1.5, 0.75}, {-2.0, 3.0}, {0.1, -1.7}, {4.0, 2.5}};
  char name[64];
  for (int k = 0; k < 4; k++) {
    double x = pts[k][0], y = pts[k][1];
    grad2 g = grad_poly2(x, y);
    snprintf(name, sizeof name, "poly2_dx_%d", k);
    check_close(name, g.a, fd_deriv(px, x, &y), 1e-6, 1e-8);
    snprintf(name, sizeof name, "poly2_dy_%d", k);
    check_close(name, g.b, fd_deriv(py, y, &x), 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
