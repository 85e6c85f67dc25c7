/* Forward mode of tests/ad/c/float_matvec.c: float matrix-vector product and
 * an elementwise tanhf into a dup output array; A and x dup. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void matvec_tanhf(const float *A, const float *x, float *y, int m,
                                            int n) {
  for (int i = 0; i < m; i++) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] = tanhf(s);
  }
}

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
