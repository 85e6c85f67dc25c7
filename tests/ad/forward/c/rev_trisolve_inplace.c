/* Forward mode of tests/ad/c/trisolve_inplace.c: forward substitution L y = b
 * in place on b; L and b dup, the shadow of b ends as the solution's
 * tangent. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void trisolve(const double *L, double *b, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) b[i] -= L[i * n + j] * b[j];
    b[i] /= L[i * n + i];
  }
}

enum { N = 6, NP = N * N + N };
/* p = L, b */
static void w_tri(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N * N, N * sizeof(double));
  trisolve(p, out, N);
}

int main(void) {
  double p[NP], v[NP], b[N], db[N], want[N];
  rng_seed(9);
  rng_fill(p, N * N, -0.5, 0.5);
  for (int i = 0; i < N; i++) {
    p[i * N + i] = 2.0 + i * 0.25;
    for (int j = i + 1; j < N; j++) p[i * N + j] = 0.0;
  }
  rng_fill(p + N * N, N, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  memcpy(b, p + N * N, sizeof b);
  memcpy(db, v + N * N, sizeof db);
  __enzyme_fwddiff((void *)trisolve, enzyme_dup, p, v, enzyme_dup, b, db, enzyme_const, N);
  fd_dir_vec(w_tri, p, v, NP, want, N, NULL);
  check_array("trisolve_db", db, want, N, 1e-6, 1e-8);
  return test_exit();
}
