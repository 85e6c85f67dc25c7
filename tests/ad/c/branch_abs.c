/* if / else-if / else on an active scalar, with fabs in one branch.
 *
 * Forward mode (-DFORWARD_MODE): if / else-if / else on an active
 * scalar, with fabs in one branch; the tangent is checked in every branch
 * against central differences and the analytic slope. */
#include "kernel_test.h"

__attribute__((noinline)) double piece(double x) {
  double r;
  if (x > 1.0) {
    r = x * x + 1.0;
  } else if (x < -1.0) {
    r = -x * x * x + 3.0;
  } else {
    r = fabs(x) * x + 2.0 * x + 1.0;
  }
  return r * 0.5;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double slope_piece(double x) {
  if (x > 1.0) return 0.5 * 2.0 * x;
  if (x < -1.0) return 0.5 * -3.0 * x * x;
  return 0.5 * (2.0 * fabs(x) + 2.0);
}

static double w_piece(double x, void *ctx) { (void)ctx; return piece(x); }

int main(void) {
  static const double pts[] = {2.5, 1.3, -0.4, 0.6, -1.8, -3.0};
  char name[64];
  for (int k = 0; k < 6; k++) {
    double dx = k % 2 ? -0.7 : 1.3;
    double t = __enzyme_fwddiff((void *)piece, enzyme_dup, pts[k], dx);
    snprintf(name, sizeof name, "piece_%d", k);
    check_close(name, t, dx * fd_deriv(w_piece, pts[k], NULL), 1e-6, 1e-8);
    snprintf(name, sizeof name, "piece_%d_exact", k);
    check_close(name, t, dx * slope_piece(pts[k]), 1e-13, 1e-14);
  }
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_piece(double x) {
  if (x > 1.0) return 0.5 * 2.0 * x;
  if (x < -1.0) return 0.5 * -3.0 * x * x;
  return 0.5 * (2.0 * fabs(x) + 2.0);
}
#endif

static double grad_piece(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_piece(x);
#else
  return __enzyme_autodiff((void *)piece, enzyme_out, x);
#endif
}

static double w_piece(double x, void *ctx) { (void)ctx; return piece(x); }

int main(void) {
  static const double pts[] = {2.5, 1.3, -0.4, 0.6, -1.8, -3.0};
  char name[64];
  for (int k = 0; k < 6; k++) {
    snprintf(name, sizeof name, "piece_%d", k);
    check_close(name, grad_piece(pts[k]), fd_deriv(w_piece, pts[k], NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
