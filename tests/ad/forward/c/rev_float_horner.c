/* Forward mode of tests/ad/c/float_horner.c: float Horner evaluation; the
 * point is passed by pointer (dup) next to the dup coefficients. */
#include "fwd_test.h"

float __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float hornerf(const float *c, const float *xp, int deg) {
  float x = *xp, p = c[deg];
  for (int i = deg - 1; i >= 0; i--) p = p * x + c[i];
  return p;
}

enum { DEG = 6, NP = DEG + 2 };
/* p[0..DEG] the coefficients, p[DEG + 1] the point */
static float w_horner(const float *p, void *c) { (void)c; return hornerf(p, p + DEG + 1, DEG); }

int main(void) {
  static const float xs[] = {-0.8f, 0.3f, 1.1f};
  float p[NP], v[NP];
  char name[64];
  rng_seed(42);
  rng_fill_f(p, DEG + 1, -1.0, 1.0);
  rng_fill_f(v, NP, -1.0, 1.0);
  for (int k = 0; k < 3; k++) {
    p[DEG + 1] = xs[k];
    float t = __enzyme_fwddiff((void *)hornerf, enzyme_dup, p, v, enzyme_dup, p + DEG + 1,
                               v + DEG + 1, enzyme_const, DEG);
    snprintf(name, sizeof name, "hornerf_jvp_%d", k);
    check_close(name, t, fd_dir_f(w_horner, p, v, NP, NULL), 5e-3, 5e-3);
    double x = xs[k], xi = 1.0, want = 0.0;
    for (int i = 0; i <= DEG; i++) {
      want += xi * v[i];
      if (i > 0) want += i * p[i] * pow(x, i - 1) * v[DEG + 1];
      xi *= x;
    }
    snprintf(name, sizeof name, "hornerf_exact_%d", k);
    check_close(name, t, want, 1e-5, 1e-5);
  }
  return test_exit();
}
