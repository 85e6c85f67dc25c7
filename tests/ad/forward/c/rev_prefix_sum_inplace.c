/* Forward mode of tests/ad/c/prefix_sum_inplace.c: in-place recurrences, a
 * prefix sum and a[i] = 0.5 a[i-1] + sin(a[i]); the shadow of a carries the
 * input tangent in and the output tangent out. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void prefix(double *a, int n) {
  for (int i = 1; i < n; i++) a[i] = a[i - 1] + a[i];
}

__attribute__((noinline)) void recur(double *a, int n) {
  for (int i = 1; i < n; i++) a[i] = 0.5 * a[i - 1] + sin(a[i]);
}

enum { N = 19 };
static void w_prefix(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  prefix(out, N);
}
static void w_recur(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  recur(out, N);
}

int main(void) {
  double a0[N], v[N], a[N], da[N], want[N];
  rng_seed(15);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)prefix, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_prefix, a0, v, N, want, N, NULL);
  check_array("prefix_da", da, want, N, 1e-6, 1e-8);
  w_prefix(v, want, NULL); /* linear: the tangent is the prefix sum of v */
  check_array("prefix_da_exact", da, want, N, 1e-13, 1e-14);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)recur, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_recur, a0, v, N, want, N, NULL);
  check_array("recur_da", da, want, N, 1e-6, 1e-8);
  return test_exit();
}
