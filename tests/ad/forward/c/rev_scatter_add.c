/* Forward mode of tests/ad/c/scatter_add.c: scatter-add with repeated indices,
 * out[idx[i]] += x[i]^2 + 0.5 out[idx[i]] x[i] (read-modify-write of a dup
 * output whose shadow carries the input tangent in). */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void scatter_add(const double *x, const int *idx, double *out,
                                           int n) {
  for (int i = 0; i < n; i++) out[idx[i]] += x[i] * x[i] + 0.5 * out[idx[i]] * x[i];
}

enum { N = 17, M = 6, NP = N + M };
static int ib[N];
/* p = x, out0 */
static void w_scatter(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N, M * sizeof(double));
  scatter_add(p, ib, out, N);
}

int main(void) {
  double p[NP], v[NP], out[M], dout[M], want[M];
  rng_seed(35);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  for (int i = 0; i < N; i++) ib[i] = (int)(rng_next() % M);
  memcpy(out, p + N, sizeof out);
  memcpy(dout, v + N, sizeof dout);
  __enzyme_fwddiff((void *)scatter_add, enzyme_dup, p, v, enzyme_const, ib, enzyme_dup, out,
                   dout, enzyme_const, N);
  fd_dir_vec(w_scatter, p, v, NP, want, M, NULL);
  check_array("scatter_add_dout", dout, want, M, 1e-6, 1e-9);
  return test_exit();
}
