/* Forward mode of tests/ad/c/gauss_seidel.c: in-place Gauss-Seidel sweeps for
 * A x = b; A, b and the iterate x all dup, the tangent of x updated in place. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void gauss_seidel(const double *A, const double *b, double *x,
                                            int n, int sweeps) {
  for (int s = 0; s < sweeps; s++) {
    for (int i = 0; i < n; i++) {
      double r = b[i];
      for (int j = 0; j < n; j++)
        if (j != i) r -= A[i * n + j] * x[j];
      x[i] = r / A[i * n + i];
    }
  }
}

enum { N = 5, SWEEPS = 8, NP = N * N + 2 * N };
/* p = A, b, x0 */
static void w_gs(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N * N + N, N * sizeof(double));
  gauss_seidel(p, p + N * N, out, N, SWEEPS);
}

int main(void) {
  double p[NP], v[NP], x[N], dx[N], want[N];
  rng_seed(18);
  rng_fill(p, N * N, -1.0, 1.0);
  for (int i = 0; i < N; i++) p[i * N + i] = 4.0 + 0.5 * i;
  rng_fill(p + N * N, N, -1.0, 1.0);
  rng_fill(p + N * N + N, N, -0.5, 0.5);
  rng_fill(v, NP, -1.0, 1.0);
  memcpy(x, p + N * N + N, sizeof x);
  memcpy(dx, v + N * N + N, sizeof dx);
  __enzyme_fwddiff((void *)gauss_seidel, enzyme_dup, p, v, enzyme_dup, p + N * N, v + N * N,
                   enzyme_dup, x, dx, enzyme_const, N, enzyme_const, SWEEPS);
  fd_dir_vec(w_gs, p, v, NP, want, N, NULL);
  check_array("gauss_seidel_dx", dx, want, N, 1e-6, 1e-9);
  return test_exit();
}
