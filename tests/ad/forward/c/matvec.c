/* Nested loops out = A x + b (all dup, runtime sizes): the tangent of out is
 * dA x + A dx + db. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void matvec(const double *A, const double *x, const double *b,
                                      double *out, int m, int n) {
  for (int i = 0; i < m; i++) {
    double s = b[i];
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    out[i] = s;
  }
}

enum { M = 7, N = 9, P = M * N + N + M };
static void w_matvec(const double *v, double *out, void *ctx) {
  (void)ctx;
  matvec(v, v + M * N, v + M * N + N, out, M, N);
}

int main(void) {
  double p[P], v[P], out[M], dout[M], want[M];
  rng_seed(7);
  rng_fill(p, P, -1.0, 1.0);
  rng_fill(v, P, -1.0, 1.0);
  zero_array(dout, M);
  __enzyme_fwddiff((void *)matvec, enzyme_dup, p, v, enzyme_dup, p + M * N, v + M * N,
                   enzyme_dup, p + M * N + N, v + M * N + N, enzyme_dup, out, dout,
                   enzyme_const, M, enzyme_const, N);
  fd_dir_vec(w_matvec, p, v, P, want, M, NULL);
  check_array("matvec_dout", dout, want, M, 1e-7, 1e-9);
  /* only x moves */
  double vx[P];
  zero_array(vx, P);
  memcpy(vx + M * N, v + M * N, sizeof(double) * N);
  __enzyme_fwddiff((void *)matvec, enzyme_const, p, enzyme_dup, p + M * N, v + M * N,
                   enzyme_const, p + M * N + N, enzyme_dup, out, dout, M, N);
  fd_dir_vec(w_matvec, p, vx, P, want, M, NULL);
  check_array("matvec_dx_only", dout, want, M, 1e-7, 1e-9);
  return test_exit();
}
