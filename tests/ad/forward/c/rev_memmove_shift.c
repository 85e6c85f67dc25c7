/* Forward mode of tests/ad/c/memmove_shift.c: memmove with overlapping source
 * and destination on active in-place data; the shadow moves with it. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void shift_mix(double *a, int n) {
  memmove(a + 1, a, (n - 1) * sizeof(double)); /* shift right by one */
  a[0] = a[1] * a[n - 1];
  memmove(a, a + 2, (n - 2) * sizeof(double)); /* shift left by two */
  for (int i = 0; i < n; i++) a[i] = a[i] * a[i] + 0.5 * a[i];
}

enum { N = 9 };
static void w_shift(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  shift_mix(out, N);
}

int main(void) {
  double a0[N], v[N], a[N], da[N], want[N];
  rng_seed(21);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)shift_mix, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_shift, a0, v, N, want, N, NULL);
  check_array("shift_mix_da", da, want, N, 1e-6, 1e-8);
  return test_exit();
}
