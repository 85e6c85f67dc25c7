/* Forward mode of tests/ad/whole/c/dupnoneed_output.c: out = tanh(W x + b(x)) written by a
 * noinline layer calling noinline helpers; out is enzyme_dupnoneed (its shadow receives the
 * tangents, its primal values are not needed) and the shadow is checked. */
#include "fwd_test.h"
#include <string.h>

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double bias(const double *x, int j, int n) {
  return 0.1 * x[j % n] * x[(j + 1) % n];
}
__attribute__((noinline)) double act(double v) { return tanh(v); }
__attribute__((noinline)) void layer(const double *x, const double *W, double *out, int n,
                                     int m) {
  for (int j = 0; j < m; j++) {
    double s = bias(x, j, n);
    for (int i = 0; i < n; i++) s += W[j * n + i] * x[i];
    out[j] = act(s);
  }
}

enum { N = 6, M = 4 };
static double Ws[M * N];
static void w_out(const double *x, double *out, void *c) { (void)c; layer(x, Ws, out, N, M); }

int main(void) {
  double x[N], v[N], out[M], dout[M], fd[M];
  char name[64];
  rng_seed(132);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(Ws, M * N, -0.8, 0.8);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    zero_array(out, M);
    zero_array(dout, M);
    __enzyme_fwddiff((void *)layer, enzyme_dup, x, v, enzyme_const, Ws, enzyme_dupnoneed, out,
                     dout, enzyme_const, N, enzyme_const, M);
    fd_dir_vec(w_out, x, v, N, fd, M, NULL);
    snprintf(name, sizeof name, "dupnoneed_dout_%d", d);
    check_array(name, dout, fd, M, 1e-6, 1e-9);
  }
  return test_exit();
}
