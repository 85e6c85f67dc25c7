/* float saxpy y += a x with the scalar a passed by pointer (float scalars
 * cannot go through the variadic call unpromoted); a, x, y all dup, output
 * only through memory.
 *
 * Forward mode (-DFORWARD_MODE): float y += a x with the scalar a
 * passed by pointer; a, x and y all dup, the result only through memory. */
#include "kernel_test.h"

__attribute__((noinline)) void saxpyf(const float *a, const float *x, float *y, int n) {
  float av = *a;
  for (int i = 0; i < n; i++) y[i] += av * x[i];
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 45 };

int main(void) {
  float a = 1.3f, da = -0.4f, x[N], dx[N], y[N], dy[N], y0[N], dy0[N];
  double want[N];
  rng_seed(41);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(y0, N, -1.0, 1.0);
  rng_fill_f(dx, N, -1.0, 1.0);
  rng_fill_f(dy0, N, -1.0, 1.0);
  memcpy(y, y0, sizeof y);
  memcpy(dy, dy0, sizeof dy);
  __enzyme_fwddiff((void *)saxpyf, enzyme_dup, &a, &da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                   enzyme_const, N);
  /* y is linear in (a, x, y) along the direction up to the a*x term: central
   * differences of the primal are exact up to rounding */
  for (int i = 0; i < N; i++) {
    double h = 1e-3;
    float ap = (float)(a + h * da), am = (float)(a - h * da);
    float yp = (float)(y0[i] + h * dy0[i]) + ap * (float)(x[i] + h * dx[i]);
    float ym = (float)(y0[i] - h * dy0[i]) + am * (float)(x[i] - h * dx[i]);
    want[i] = ((double)yp - (double)ym) / (2 * h);
  }
  check_array_f("saxpyf_dy_fd", dy, want, N, 5e-3, 5e-3);
  for (int i = 0; i < N; i++) want[i] = (double)dy0[i] + (double)da * x[i] + (double)a * dx[i];
  check_array_f("saxpyf_dy_exact", dy, want, N, 1e-5, 1e-6);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_saxpyf(const float *a, float *da, const float *x, float *dx, float *y,
                            float *dy, int n) {
  saxpyf(a, x, y, n);
  float g = 0.0f;
  for (int i = 0; i < n; i++) {
    g += x[i] * dy[i];
    dx[i] += *a * dy[i];
  }
  *da += g;
}
#endif

static void grad_saxpyf(const float *a, float *da, const float *x, float *dx, float *y,
                        float *dy, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_saxpyf(a, da, x, dx, y, dy, n);
#else
  __enzyme_autodiff((void *)saxpyf, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
#endif
}

enum { N = 45 };
static float ab = 1.3f, xb[N], yb[N], seed[N];
static float seeded(const float *a, const float *x) {
  float y[N], s = 0.0f;
  memcpy(y, yb, sizeof y);
  saxpyf(a, x, y, N);
  for (int i = 0; i < N; i++) s += seed[i] * y[i];
  return s;
}
static float w_a(const float *a, void *p) { (void)p; return seeded(a, xb); }
static float w_x(const float *x, void *p) { (void)p; return seeded(&ab, x); }

int main(void) {
  float da = 0.0f, dx[N], y[N], dy[N];
  double fda[1], fdx[N];
  rng_seed(41);
  rng_fill_f(xb, N, -1.0, 1.0);
  rng_fill_f(yb, N, -1.0, 1.0);
  rng_fill_f(seed, N, -1.0, 1.0);
  zero_array_f(dx, N);
  memcpy(y, yb, sizeof y);
  memcpy(dy, seed, sizeof dy);
  grad_saxpyf(&ab, &da, xb, dx, y, dy, N);
  fd_grad_array_f(w_a, &ab, 1, NULL, fda);
  fd_grad_array_f(w_x, xb, N, NULL, fdx);
  check_array_f("saxpyf_da", &da, fda, 1, 5e-3, 5e-3);
  check_array_f("saxpyf_dx", dx, fdx, N, 5e-3, 5e-3);
  return test_exit();
}
#endif /* FORWARD_MODE */
