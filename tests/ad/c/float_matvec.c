/* float matrix-vector product followed by an elementwise tanh, into a dup
 * output array; A and x dup.
 *
 * Forward mode (-DFORWARD_MODE): float matrix-vector product and
 * an elementwise tanhf into a dup output array; A and x dup. */
#include "kernel_test.h"

__attribute__((noinline)) void matvec_tanhf(const float *A, const float *x, float *y, int m,
                                            int n) {
  for (int i = 0; i < m; i++) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] = tanhf(s);
  }
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { M = 6, N = 9, NP = M * N + N };
static int row;
static float w_row(const float *p, void *c) {
  (void)c;
  float y[M];
  matvec_tanhf(p, p + M * N, y, M, N);
  return y[row];
}

int main(void) {
  float p[NP], v[NP], y[M], dy[M];
  double want[M];
  rng_seed(44);
  rng_fill_f(p, M * N, -0.5, 0.5);
  rng_fill_f(p + M * N, N, -1.0, 1.0);
  rng_fill_f(v, NP, -1.0, 1.0);
  zero_array_f(dy, M);
  __enzyme_fwddiff((void *)matvec_tanhf, enzyme_dup, p, v, enzyme_dup, p + M * N, v + M * N,
                   enzyme_dup, y, dy, enzyme_const, M, enzyme_const, N);
  for (row = 0; row < M; row++) want[row] = fd_dir_f(w_row, p, v, NP, NULL);
  check_array_f("matvec_tanhf_dy", dy, want, M, 5e-3, 2e-3);
  for (int i = 0; i < M; i++) {
    double s = 0.0, sd = 0.0;
    for (int j = 0; j < N; j++) {
      s += (double)p[i * N + j] * p[M * N + j];
      sd += (double)v[i * N + j] * p[M * N + j] + (double)p[i * N + j] * v[M * N + j];
    }
    want[i] = (1.0 - tanh(s) * tanh(s)) * sd;
  }
  check_array_f("matvec_tanhf_exact", dy, want, M, 1e-4, 1e-5);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_matvec_tanhf(const float *A, float *dA, const float *x, float *dx, float *y,
                                  float *dy, int m, int n) {
  matvec_tanhf(A, x, y, m, n);
  for (int i = 0; i < m; i++) {
    float g = dy[i] * (1.0f - y[i] * y[i]);
    for (int j = 0; j < n; j++) {
      dA[i * n + j] += g * x[j];
      dx[j] += g * A[i * n + j];
    }
    dy[i] = 0.0f;
  }
}
#endif

static void grad_matvec_tanhf(const float *A, float *dA, const float *x, float *dx, float *y,
                              float *dy, int m, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_matvec_tanhf(A, dA, x, dx, y, dy, m, n);
#else
  __enzyme_autodiff((void *)matvec_tanhf, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_dup, y,
                    dy, m, n);
#endif
}

enum { M = 6, N = 9 };
static float Ab[M * N], xb[N], seed[M];
static float seeded(const float *A, const float *x) {
  float y[M], s = 0.0f;
  matvec_tanhf(A, x, y, M, N);
  for (int i = 0; i < M; i++) s += seed[i] * y[i];
  return s;
}
static float w_A(const float *A, void *p) { (void)p; return seeded(A, xb); }
static float w_x(const float *x, void *p) { (void)p; return seeded(Ab, x); }

int main(void) {
  float dA[M * N], dx[N], y[M], dy[M];
  double fdA[M * N], fdx[N];
  rng_seed(44);
  rng_fill_f(Ab, M * N, -0.5, 0.5);
  rng_fill_f(xb, N, -1.0, 1.0);
  rng_fill_f(seed, M, -1.0, 1.0);
  zero_array_f(dA, M * N);
  zero_array_f(dx, N);
  memcpy(dy, seed, sizeof dy);
  grad_matvec_tanhf(Ab, dA, xb, dx, y, dy, M, N);
  fd_grad_array_f(w_A, Ab, M * N, NULL, fdA);
  fd_grad_array_f(w_x, xb, N, NULL, fdx);
  check_array_f("matvec_tanhf_dA", dA, fdA, M * N, 5e-3, 2e-3);
  check_array_f("matvec_tanhf_dx", dx, fdx, N, 5e-3, 2e-3);
  return test_exit();
}
#endif /* FORWARD_MODE */
