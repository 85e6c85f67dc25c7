/* Forward mode of tests/ad/c/memset_active.c: memset zeroes the head of a dup
 * array (its tangent must vanish too) and clears a local accumulator. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double zero_head(double *x, int n, int k) {
  double acc[8];
  memset(x, 0, k * sizeof(double));
  memset(acc, 0, sizeof acc);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * (i + 1) + cos(x[i]);
  for (int i = 0; i < n; i++) acc[i % 8] += x[i] * x[(i + 3) % n];
  for (int j = 0; j < 8; j++) s += acc[j] * acc[j];
  return s;
}

enum { N = 13, KZ = 4 };
static double w_zero_head(const double *x, void *ctx) {
  (void)ctx;
  double b[N];
  memcpy(b, x, sizeof b);
  return zero_head(b, N, KZ);
}

int main(void) {
  double x0[N], x[N], v[N], dx[N], zeros[KZ];
  rng_seed(22);
  rng_fill(x0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  memcpy(dx, v, sizeof dx);
  double t = __enzyme_fwddiff((void *)zero_head, enzyme_dup, x, dx, enzyme_const, N,
                              enzyme_const, KZ);
  check_close("zero_head_jvp", t, fd_dir(w_zero_head, x0, v, N, NULL), 1e-6, 1e-8);
  zero_array(zeros, KZ);
  check_array("zero_head_dx_zeroed", dx, zeros, KZ, 0.0, 0.0);
  check_array("zero_head_dx_tail_kept", dx + KZ, v + KZ, N - KZ, 0.0, 0.0);
  check_close("zero_head_primal_effect", x[KZ - 1], 0.0, 0.0, 0.0);
  return test_exit();
}
