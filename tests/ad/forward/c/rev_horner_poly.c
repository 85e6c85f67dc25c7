/* Forward mode of tests/ad/c/horner_poly.c: Horner evaluation with dup
 * coefficients and a dup scalar point; checked at three points against
 * central differences and the exact derivative. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double horner(const double *c, int deg, double x) {
  double p = c[deg];
  for (int i = deg - 1; i >= 0; i--) p = p * x + c[i];
  return p;
}

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
