/* float dot product (vectorized at -O2) with an active float return; both
 * inputs dup.  Checked against float central differences (looser tolerance).
 *
 * Forward mode (-DFORWARD_MODE): float dot product (vectorized at
 * -O2) with a float tangent return; both inputs dup. */
#include "kernel_test.h"

__attribute__((noinline)) float dotf(const float *x, const float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

#ifdef FORWARD_MODE
float __enzyme_fwddiff(void *, ...);

enum { N = 70 };
static float w_dot(const float *p, void *c) { (void)c; return dotf(p, p + N, N); }

int main(void) {
  float p[2 * N], v[2 * N];
  rng_seed(40);
  rng_fill_f(p, 2 * N, -1.0, 1.0);
  rng_fill_f(v, 2 * N, -1.0, 1.0);
  float t = __enzyme_fwddiff((void *)dotf, enzyme_dup, p, v, enzyme_dup, p + N, v + N,
                             enzyme_const, N);
  check_close("dotf_jvp", t, fd_dir_f(w_dot, p, v, 2 * N, NULL), 5e-3, 5e-3);
  double want = 0.0;
  for (int i = 0; i < N; i++) want += (double)v[i] * p[N + i] + (double)p[i] * v[N + i];
  check_close("dotf_exact", t, want, 1e-5, 1e-5);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_dotf(const float *x, float *dx, const float *y, float *dy, int n) {
  for (int i = 0; i < n; i++) {
    dx[i] += y[i];
    dy[i] += x[i];
  }
}
#endif

static void grad_dotf(const float *x, float *dx, const float *y, float *dy, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_dotf(x, dx, y, dy, n);
#else
  __enzyme_autodiff((void *)dotf, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
#endif
}

enum { N = 70 };
static float w_x(const float *x, void *p) { return dotf(x, (const float *)p, N); }
static float w_y(const float *y, void *p) { return dotf((const float *)p, y, N); }

int main(void) {
  float x[N], y[N], dx[N], dy[N];
  double fdx[N], fdy[N];
  rng_seed(40);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(y, N, -1.0, 1.0);
  zero_array_f(dx, N);
  zero_array_f(dy, N);
  grad_dotf(x, dx, y, dy, N);
  fd_grad_array_f(w_x, x, N, y, fdx);
  fd_grad_array_f(w_y, y, N, x, fdy);
  check_array_f("dotf_dx", dx, fdx, N, 5e-3, 5e-3);
  check_array_f("dotf_dy", dy, fdy, N, 5e-3, 5e-3);
  return test_exit();
}
#endif /* FORWARD_MODE */
