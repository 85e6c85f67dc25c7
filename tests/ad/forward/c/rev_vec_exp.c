/* Forward mode of tests/ad/c/vec_exp.c: elementwise
 * out[i] = 2 exp(x[i]) + x[i] tanh(x[i]) over a runtime length (restrict
 * pointers, vectorized at -O2) into a dup output array. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void vexp(const double *restrict x, double *restrict out, int n) {
  for (int i = 0; i < n; i++) out[i] = 2.0 * exp(x[i]) + x[i] * tanh(x[i]);
}

enum { N = 66 };
static void w_vexp(const double *x, double *out, void *c) { (void)c; vexp(x, out, N); }

int main(void) {
  double x[N], v[N], out[N], dout[N], want[N];
  rng_seed(24);
  rng_fill(x, N, -2.0, 2.0);
  rng_fill(v, N, -1.0, 1.0);
  zero_array(dout, N);
  __enzyme_fwddiff((void *)vexp, enzyme_dup, x, v, enzyme_dup, out, dout, enzyme_const, N);
  fd_dir_vec(w_vexp, x, v, N, want, N, NULL);
  check_array("vexp_dout", dout, want, N, 1e-6, 1e-8);
  for (int i = 0; i < N; i++) {
    double th = tanh(x[i]);
    want[i] = (2.0 * exp(x[i]) + th + x[i] * (1.0 - th * th)) * v[i];
  }
  check_array("vexp_dout_exact", dout, want, N, 1e-13, 1e-14);
  return test_exit();
}
