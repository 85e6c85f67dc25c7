/* memcpy of active data into a local buffer, an update, and memcpy out into a
 * dup output: the shadows are copied the same way. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void copy_mix(const double *x, double *out, int n) {
  double buf[32];
  memcpy(buf, x, n * sizeof(double));
  for (int i = 0; i < n; i++) buf[i] = buf[i] * x[(i + 1) % n] + 1.0;
  memcpy(out, buf, n * sizeof(double));
  out[0] += out[n - 1] * x[0];
}

enum { N = 11 };
static void w_copy(const double *x, double *out, void *ctx) {
  (void)ctx;
  copy_mix(x, out, N);
}

int main(void) {
  double x[N], dx[N], out[N], dout[N], want[N], prim[N];
  rng_seed(13);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(dx, N, -1.0, 1.0);
  rng_fill(dout, N, 5.0, 6.0); /* overwritten: out's old tangent does not matter */
  __enzyme_fwddiff((void *)copy_mix, enzyme_dup, x, dx, enzyme_dup, out, dout, N);
  fd_dir_vec(w_copy, x, dx, N, want, N, NULL);
  check_array("copy_mix_dout", dout, want, N, 1e-7, 1e-9);
  copy_mix(x, prim, N);
  check_array("copy_mix_primal", out, prim, N, 0.0, 0.0);
  return test_exit();
}
