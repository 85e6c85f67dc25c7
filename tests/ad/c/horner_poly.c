/* Horner evaluation: coefficients dup, the point an enzyme_out scalar whose
 * derivative is returned (mixing enzyme_out with dup arrays); called twice to
 * check that d_c accumulates while the returned dx does not.
 *
 * Forward mode (-DFORWARD_MODE): Horner evaluation with dup
 * coefficients and a dup scalar point; checked at three points against
 * central differences and the exact derivative. */
#include "kernel_test.h"

__attribute__((noinline)) double horner(const double *c, int deg, double x) {
  double p = c[deg];
  for (int i = deg - 1; i >= 0; i--) p = p * x + c[i];
  return p;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { DEG = 9, NP = DEG + 2 };
/* p = c[0..DEG], x */
static double w_horner(const double *p, void *c) { (void)c; return horner(p, DEG, p[DEG + 1]); }

int main(void) {
  static const double xs[] = {-1.3, 0.4, 0.95};
  double p[NP], v[NP];
  char name[64];
  rng_seed(30);
  rng_fill(p, DEG + 1, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  for (int k = 0; k < 3; k++) {
    double x = p[DEG + 1] = xs[k];
    double t = __enzyme_fwddiff((void *)horner, enzyme_dup, p, v, enzyme_const, DEG,
                                enzyme_dup, x, v[DEG + 1]);
    snprintf(name, sizeof name, "horner_jvp_%d", k);
    check_close(name, t, fd_dir(w_horner, p, v, NP, NULL), 1e-6, 1e-9);
    double xi = 1.0, want = 0.0;
    for (int i = 0; i <= DEG; i++) {
      want += xi * v[i];
      if (i > 0) want += i * p[i] * pow(x, i - 1) * v[DEG + 1];
      xi *= x;
    }
    snprintf(name, sizeof name, "horner_exact_%d", k);
    check_close(name, t, want, 1e-12, 1e-13);
  }
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_horner(const double *c, double *dc, int deg, double x) {
  double xi = 1.0, dx = 0.0;
  for (int i = 0; i <= deg; i++) {
    dc[i] += xi;
    if (i > 0) dx += i * c[i] * pow(x, i - 1);
    xi *= x;
  }
  return dx;
}
#endif

static double grad_horner(const double *c, double *dc, int deg, double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_horner(c, dc, deg, x);
#else
  return __enzyme_autodiff((void *)horner, enzyme_dup, c, dc, enzyme_const, deg, enzyme_out, x);
#endif
}

enum { DEG = 9 };
static double cb[DEG + 1];
static double w_x(double x, void *p) { (void)p; return horner(cb, DEG, x); }
static double w_c(const double *c, void *p) { return horner(c, DEG, *(double *)p); }

int main(void) {
  double dc[DEG + 1], fd[DEG + 1], tw[DEG + 1];
  char name[64];
  rng_seed(30);
  rng_fill(cb, DEG + 1, -1.0, 1.0);
  static const double xs[] = {-1.3, 0.4, 0.95};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    zero_array(dc, DEG + 1);
    double dx = grad_horner(cb, dc, DEG, x);
    snprintf(name, sizeof name, "horner_dx_%d", k);
    check_close(name, dx, fd_deriv(w_x, x, NULL), 1e-6, 1e-9);
    fd_grad_array(w_c, cb, DEG + 1, &x, fd);
    snprintf(name, sizeof name, "horner_dc_%d", k);
    check_array(name, dc, fd, DEG + 1, 1e-6, 1e-9);
    double dx2 = grad_horner(cb, dc, DEG, x);
    for (int i = 0; i <= DEG; i++) tw[i] = 2.0 * fd[i];
    snprintf(name, sizeof name, "horner_dc_accumulates_%d", k);
    check_array(name, dc, tw, DEG + 1, 1e-6, 1e-9);
    snprintf(name, sizeof name, "horner_dx_again_%d", k);
    check_close(name, dx2, dx, 1e-12, 0.0);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
