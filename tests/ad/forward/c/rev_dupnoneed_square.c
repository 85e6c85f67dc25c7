/* Forward mode of tests/ad/c/dupnoneed_square.c: the output array is
 * enzyme_dupnoneed (only its tangent is wanted).
 * out[i] = x[i]^2 * x[i+1] + sqrt(1 + x[i]^2). */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void sq_next(const double *x, double *out, int n) {
  for (int i = 0; i < n - 1; i++) out[i] = x[i] * x[i] * x[i + 1] + sqrt(1.0 + x[i] * x[i]);
  out[n - 1] = x[n - 1];
}

enum { N = 15 };
static void w_sq(const double *x, double *out, void *c) { (void)c; sq_next(x, out, N); }

int main(void) {
  double x[N], v[N], out[N], dout[N], want[N];
  rng_seed(25);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(v, N, -1.0, 1.0);
  zero_array(out, N);
  zero_array(dout, N);
  __enzyme_fwddiff((void *)sq_next, enzyme_dup, x, v, enzyme_dupnoneed, out, dout,
                   enzyme_const, N);
  fd_dir_vec(w_sq, x, v, N, want, N, NULL);
  check_array("sq_next_dout", dout, want, N, 1e-6, 1e-8);
  for (int i = 0; i < N - 1; i++)
    want[i] = (2.0 * x[i] * x[i + 1] + x[i] / sqrt(1.0 + x[i] * x[i])) * v[i] +
              x[i] * x[i] * v[i + 1];
  want[N - 1] = v[N - 1];
  check_array("sq_next_dout_exact", dout, want, N, 1e-13, 1e-14);
  return test_exit();
}
