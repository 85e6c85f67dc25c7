/* Forward mode of tests/ad/c/loop_nested_matvec.c: y = A x written through an
 * output array; A and x dup, the tangent lands in the shadow of y. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void matvec(const double *A, const double *x, double *y,
                                      int m, int n) {
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}

enum { M = 5, N = 7, NP = M * N + N };
static void w_mv(const double *p, double *y, void *ctx) {
  (void)ctx;
  matvec(p, p + M * N, y, M, N);
}

int main(void) {
  double p[NP], v[NP], y[M], dy[M], want[M];
  rng_seed(7);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  zero_array(dy, M);
  __enzyme_fwddiff((void *)matvec, enzyme_dup, p, v, enzyme_dup, p + M * N, v + M * N,
                   enzyme_dup, y, dy, enzyme_const, M, enzyme_const, N);
  fd_dir_vec(w_mv, p, v, NP, want, M, NULL);
  check_array("matvec_dy", dy, want, M, 1e-6, 1e-8);
  for (int i = 0; i < M; i++) {
    want[i] = 0.0;
    for (int j = 0; j < N; j++)
      want[i] += v[i * N + j] * p[M * N + j] + p[i * N + j] * v[M * N + j];
  }
  check_array("matvec_dy_exact", dy, want, M, 1e-13, 1e-14);
  return test_exit();
}
