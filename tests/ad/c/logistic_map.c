/* A loop-carried scalar recurrence x <- r x (1 - x), differentiated w.r.t. the
 * rate and the starting value (two enzyme_out scalars, struct return); the
 * step count is an unannotated int.
 *
 * Forward mode (-DFORWARD_MODE): a loop-carried scalar recurrence
 * x <- r x (1 - x) with tangents on the rate and the starting value; the step
 * count is an unannotated int. */
#include "kernel_test.h"

__attribute__((noinline)) double logistic(double r, double x0, int n) {
  double x = x0, acc = 0.0;
  for (int i = 0; i < n; i++) {
    x = r * x * (1.0 - x);
    acc += x / (i + 1);
  }
  return acc;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { STEPS = 40 };
static double w_logistic(const double *p, void *c) { (void)c; return logistic(p[0], p[1], STEPS); }

int main(void) {
  static const double rx[][2] = {{2.5, 0.2}, {2.9, 0.7}, {1.7, 0.45}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {0.6, -0.8}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)logistic, enzyme_dup, rx[k][0], dirs[d][0],
                                  enzyme_dup, rx[k][1], dirs[d][1], STEPS);
      snprintf(name, sizeof name, "logistic_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_logistic, rx[k], dirs[d], 2, NULL), 1e-6, 1e-9);
    }
  }
  return test_exit();
}

#else /* reverse mode */
typedef struct { double dr, dx0; } grad2;
grad2 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_logistic(double r, double x0, int n) {
  grad2 g;
  for (int dir = 0; dir < 2; dir++) {
    double x = x0, xd = dir == 1 ? 1.0 : 0.0, rd = dir == 0 ? 1.0 : 0.0, accd = 0.0;
    for (int i = 0; i < n; i++) {
      xd = rd * x * (1.0 - x) + r * (1.0 - 2.0 * x) * xd;
      x = r * x * (1.0 - x);
      accd += xd / (i + 1);
    }
    if (dir == 0) g.dr = accd; else g.dx0 = accd;
  }
  return g;
}
#endif

static grad2 grad_logistic(double r, double x0, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_logistic(r, x0, n);
#else
  return __enzyme_autodiff((void *)logistic, enzyme_out, r, enzyme_out, x0, n);
#endif
}

enum { STEPS = 40 };
static double w_r(double r, void *p) { return logistic(r, *(double *)p, STEPS); }
static double w_x0(double x0, void *p) { return logistic(*(double *)p, x0, STEPS); }

int main(void) {
  static const double rx[][2] = {{2.5, 0.2}, {2.9, 0.7}, {1.7, 0.45}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    double r = rx[k][0], x0 = rx[k][1];
    grad2 g = grad_logistic(r, x0, STEPS);
    snprintf(name, sizeof name, "logistic_dr_%d", k);
    check_close(name, g.dr, fd_deriv(w_r, r, &x0), 1e-6, 1e-9);
    snprintf(name, sizeof name, "logistic_dx0_%d", k);
    check_close(name, g.dx0, fd_deriv(w_x0, x0, &r), 1e-6, 1e-9);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
