/* float Horner evaluation with an active float return; the point is passed by
 * pointer (dup) next to the dup coefficients.
 *
 * Forward mode (-DFORWARD_MODE): float Horner evaluation; the
 * point is passed by pointer (dup) next to the dup coefficients. */
#include "kernel_test.h"

__attribute__((noinline)) float hornerf(const float *c, const float *xp, int deg) {
  float x = *xp, p = c[deg];
  for (int i = deg - 1; i >= 0; i--) p = p * x + c[i];
  return p;
}

#ifdef FORWARD_MODE
float __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_hornerf(const float *c, float *dc, const float *xp, float *dxp, int deg) {
  float x = *xp, xi = 1.0f, d = 0.0f;
  for (int i = 0; i <= deg; i++) {
    dc[i] += xi;
    if (i > 0) d += i * c[i] * powf(x, (float)(i - 1));
    xi *= x;
  }
  *dxp += d;
}
#endif

static void grad_hornerf(const float *c, float *dc, const float *xp, float *dxp, int deg) {
#ifdef REFERENCE_GRADIENT
  ref_grad_hornerf(c, dc, xp, dxp, deg);
#else
  __enzyme_autodiff((void *)hornerf, enzyme_dup, c, dc, enzyme_dup, xp, dxp, enzyme_const, deg);
#endif
}

enum { DEG = 6 };
static float cb[DEG + 1], xv;
static float w_c(const float *c, void *p) { (void)p; return hornerf(c, &xv, DEG); }
static float w_x(const float *x, void *p) { (void)p; return hornerf(cb, x, DEG); }

int main(void) {
  float dc[DEG + 1], dxv;
  double fdc[DEG + 1], fdx[1];
  char name[64];
  rng_seed(42);
  rng_fill_f(cb, DEG + 1, -1.0, 1.0);
  static const float xs[] = {-0.8f, 0.3f, 1.1f};
  for (int k = 0; k < 3; k++) {
    xv = xs[k];
    zero_array_f(dc, DEG + 1);
    dxv = 0.0f;
    grad_hornerf(cb, dc, &xv, &dxv, DEG);
    fd_grad_array_f(w_c, cb, DEG + 1, NULL, fdc);
    fd_grad_array_f(w_x, &xv, 1, NULL, fdx);
    snprintf(name, sizeof name, "hornerf_dc_%d", k);
    check_array_f(name, dc, fdc, DEG + 1, 5e-3, 5e-3);
    snprintf(name, sizeof name, "hornerf_dx_%d", k);
    check_array_f(name, &dxv, fdx, 1, 5e-3, 5e-3);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
