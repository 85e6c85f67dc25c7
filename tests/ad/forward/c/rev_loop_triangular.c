/* Forward mode of tests/ad/c/loop_triangular.c: a triangular nested loop
 * (j < i) with an enzyme_const coefficient array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double tri_pairs(const double *x, const double *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double inner = 0.0;
    for (int j = 0; j < i; j++) inner += c[i - j] * x[j];
    s += x[i] * inner + 0.1 * x[i] * x[i] * x[i];
  }
  return s;
}

enum { N = 17 };
static double w_tri(const double *x, void *ctx) { return tri_pairs(x, (const double *)ctx, N); }

int main(void) {
  double x[N], c[N], v[N];
  char name[32];
  rng_seed(8);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(c, N, -0.5, 0.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)tri_pairs, enzyme_dup, x, v, enzyme_const, c,
                                enzyme_const, N);
    snprintf(name, sizeof name, "tri_pairs_jvp_%d", d);
    check_close(name, t, fd_dir(w_tri, x, v, N, c), 1e-6, 1e-8);
  }
  return test_exit();
}
