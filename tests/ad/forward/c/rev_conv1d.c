/* Forward mode of tests/ad/c/conv1d.c: 1-D valid convolution into an output
 * array; signal and kernel dup, the output's shadow receives the tangent. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void conv1d(const double *sig, const double *ker, double *out, int n,
                                      int k) {
  for (int i = 0; i + k <= n; i++) {
    double s = 0.0;
    for (int j = 0; j < k; j++) s += ker[j] * sig[i + j];
    out[i] = s;
  }
}

enum { N = 20, KW = 5, NO = N - KW + 1, NP = N + KW };
static void w_conv(const double *p, double *out, void *ctx) {
  (void)ctx;
  conv1d(p, p + N, out, N, KW);
}

int main(void) {
  double p[NP], v[NP], out[NO], dout[NO], want[NO], prim[NO];
  rng_seed(34);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  zero_array(dout, NO);
  __enzyme_fwddiff((void *)conv1d, enzyme_dup, p, v, enzyme_dup, p + N, v + N, enzyme_dup, out,
                   dout, enzyme_const, N, enzyme_const, KW);
  fd_dir_vec(w_conv, p, v, NP, want, NO, NULL);
  check_array("conv1d_dout", dout, want, NO, 1e-6, 1e-9);
  w_conv(p, prim, NULL);
  check_array("conv1d_primal", out, prim, NO, 1e-15, 0.0);
  return test_exit();
}
