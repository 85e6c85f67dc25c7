/* libm: fabs, fmax, fmin, tanh, erf on two enzyme_out scalars (struct
 * return); the test points avoid the kinks.
 *
 * Forward mode (-DFORWARD_MODE): fabs, fmax, fmin, tanh, erf on two
 * dup scalars; the test points avoid the kinks. */
#include "kernel_test.h"

__attribute__((noinline)) double misc(double a, double b) {
  return 0.5 * fabs(a - b) + fmax(a, b * b) + fmin(a * b, 1.0) + tanh(a * b) +
         erf(a - 0.3 * b);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_misc(const double *p, void *c) { (void)c; return misc(p[0], p[1]); }

int main(void) {
  static const double pts[][2] = {{0.7, 0.4}, {-0.5, 1.2}, {2.0, 1.1}, {0.3, -2.0}};
  double v[2];
  char name[64];
  rng_seed(47);
  for (int k = 0; k < 4; k++) {
    rng_fill(v, 2, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)misc, enzyme_dup, pts[k][0], v[0], enzyme_dup,
                                pts[k][1], v[1]);
    snprintf(name, sizeof name, "misc_jvp_%d", k);
    check_close(name, t, fd_dir(w_misc, pts[k], v, 2, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
typedef struct { double da, db; } grad2;
grad2 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_misc(double a, double b) {
  grad2 g = {0.0, 0.0};
  double s = a > b ? 0.5 : -0.5;
  g.da += s;
  g.db -= s;
  if (a > b * b) g.da += 1.0; else g.db += 2.0 * b;
  if (a * b < 1.0) { g.da += b; g.db += a; }
  double t = tanh(a * b);
  g.da += (1.0 - t * t) * b;
  g.db += (1.0 - t * t) * a;
  double u = a - 0.3 * b, e = 2.0 / sqrt(M_PI) * exp(-u * u);
  g.da += e;
  g.db += -0.3 * e;
  return g;
}
#endif

static grad2 grad_misc(double a, double b) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_misc(a, b);
#else
  return __enzyme_autodiff((void *)misc, enzyme_out, a, enzyme_out, b);
#endif
}

static double w_a(double a, void *c) { return misc(a, *(double *)c); }
static double w_b(double b, void *c) { return misc(*(double *)c, b); }

int main(void) {
  static const double pts[][2] = {{0.7, 0.4}, {-0.5, 1.2}, {2.0, 1.1}, {0.3, -2.0}};
  char name[64];
  for (int k = 0; k < 4; k++) {
    double a = pts[k][0], b = pts[k][1];
    grad2 g = grad_misc(a, b);
    snprintf(name, sizeof name, "misc_da_%d", k);
    check_close(name, g.da, fd_deriv(w_a, a, &b), 1e-6, 1e-8);
    snprintf(name, sizeof name, "misc_db_%d", k);
    check_close(name, g.db, fd_deriv(w_b, b, &a), 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
