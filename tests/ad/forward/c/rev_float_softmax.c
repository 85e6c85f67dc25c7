/* Forward mode of tests/ad/c/float_softmax.c: float softmax (fmaxf shift,
 * expf, normalisation) into a dup output array. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void softmaxf(const float *x, float *out, int n) {
  float m = x[0];
  for (int i = 1; i < n; i++) m = fmaxf(m, x[i]);
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    out[i] = expf(x[i] - m);
    s += out[i];
  }
  for (int i = 0; i < n; i++) out[i] /= s;
}

enum { N = 12 };
static int row;
static float w_soft(const float *x, void *p) {
  (void)p;
  float out[N];
  softmaxf(x, out, N);
  return out[row];
}

int main(void) {
  float x[N], v[N], out[N], dout[N];
  double want[N];
  rng_seed(43);
  rng_fill_f(x, N, -2.0, 2.0);
  rng_fill_f(v, N, -1.0, 1.0);
  zero_array_f(dout, N);
  __enzyme_fwddiff((void *)softmaxf, enzyme_dup, x, v, enzyme_dup, out, dout, enzyme_const, N);
  for (row = 0; row < N; row++) want[row] = fd_dir_f(w_soft, x, v, N, NULL);
  check_array_f("softmaxf_dout", dout, want, N, 5e-3, 2e-3);
  double sv = 0.0;
  for (int i = 0; i < N; i++) sv += (double)out[i] * v[i];
  for (int i = 0; i < N; i++) want[i] = out[i] * (v[i] - sv);
  check_array_f("softmaxf_exact", dout, want, N, 1e-4, 1e-6);
  return test_exit();
}
