/* Fixed-point iteration x <- a cos(x) + b until the update is below a
 * tolerance (data-dependent trip count); derivatives w.r.t. a and b.
 *
 * Forward mode (-DFORWARD_MODE): the fixed-point iteration
 * x <- a cos(x) + b until the update is below a tolerance (data-dependent
 * trip count), with tangents on a and b. */
#include "kernel_test.h"

__attribute__((noinline)) double fixed_point(double a, double b) {
  double x = b, delta = 1.0;
  int it = 0;
  while (fabs(delta) > 1e-15 && it < 1000) {
    double xn = a * cos(x) + b;
    delta = xn - x;
    x = xn;
    it++;
  }
  return x;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_fp(const double *p, void *c) { (void)c; return fixed_point(p[0], p[1]); }

int main(void) {
  static const double ab[][2] = {{0.5, 0.3}, {0.7, -0.4}, {0.25, 1.0}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {0.8, 0.6}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)fixed_point, enzyme_dup, ab[k][0], dirs[d][0],
                                  enzyme_dup, ab[k][1], dirs[d][1]);
      snprintf(name, sizeof name, "fixed_point_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_fp, ab[k], dirs[d], 2, NULL), 1e-6, 1e-9);
    }
    /* implicit function theorem: dx = (cos(x) da + db) / (1 + a sin(x)) */
    double x = fixed_point(ab[k][0], ab[k][1]);
    double t = __enzyme_fwddiff((void *)fixed_point, enzyme_dup, ab[k][0], 0.8, enzyme_dup,
                                ab[k][1], 0.6);
    snprintf(name, sizeof name, "fixed_point_ift_%d", k);
    check_close(name, t, (0.8 * cos(x) + 0.6) / (1.0 + ab[k][0] * sin(x)), 1e-9, 1e-12);
  }
  return test_exit();
}

#else /* reverse mode */
typedef struct { double da, db; } grad2;
grad2 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_fixed_point(double a, double b) {
  double x = fixed_point(a, b);
  double den = 1.0 + a * sin(x);
  grad2 g = {cos(x) / den, 1.0 / den};
  return g;
}
#endif

static grad2 grad_fixed_point(double a, double b) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_fixed_point(a, b);
#else
  return __enzyme_autodiff((void *)fixed_point, enzyme_out, a, enzyme_out, b);
#endif
}

static double w_a(double a, void *p) { return fixed_point(a, *(double *)p); }
static double w_b(double b, void *p) { return fixed_point(*(double *)p, b); }

int main(void) {
  static const double ab[][2] = {{0.5, 0.3}, {0.7, -0.4}, {0.25, 1.0}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    double a = ab[k][0], b = ab[k][1];
    grad2 g = grad_fixed_point(a, b);
    snprintf(name, sizeof name, "fixed_point_da_%d", k);
    check_close(name, g.da, fd_deriv(w_a, a, &b), 1e-6, 1e-9);
    snprintf(name, sizeof name, "fixed_point_db_%d", k);
    check_close(name, g.db, fd_deriv(w_b, b, &a), 1e-6, 1e-9);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
