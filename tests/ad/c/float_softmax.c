/* float softmax into a dup output array (seed in d_out, zeroed by the
 * gradient). */
#include "enzyme_test.h"

void __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_softmaxf(const float *x, float *dx, float *out, float *dout, int n) {
  softmaxf(x, out, n);
  float dot = 0.0f;
  for (int i = 0; i < n; i++) dot += dout[i] * out[i];
  for (int i = 0; i < n; i++) {
    dx[i] += out[i] * (dout[i] - dot);
  }
  for (int i = 0; i < n; i++) dout[i] = 0.0f;
}
#endif

static void grad_softmaxf(const float *x, float *dx, float *out, float *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_softmaxf(x, dx, out, dout, n);
#else
  __enzyme_autodiff((void *)softmaxf, enzyme_dup, x, dx, enzyme_dup, out, dout, n);
#endif
}

enum { N = 12 };
static float seed[N];
static float w_soft(const float *x, void *p) {
  (void)p;
  float out[N], s = 0.0f;
  softmaxf(x, out, N);
  for (int i = 0; i < N; i++) s += seed[i] * out[i];
  return s;
}

int main(void) {
  float x[N], dx[N], out[N], dout[N];
  double fd[N], zeros[N] = {0};
  rng_seed(43);
  rng_fill_f(x, N, -2.0, 2.0);
  rng_fill_f(seed, N, -1.0, 1.0);
  zero_array_f(dx, N);
  memcpy(dout, seed, sizeof dout);
  grad_softmaxf(x, dx, out, dout, N);
  fd_grad_array_f(w_soft, x, N, NULL, fd);
  check_array_f("softmaxf_dx", dx, fd, N, 5e-3, 2e-3);
  check_array_f("softmaxf_dout_zeroed", dout, zeros, N, 0.0, 0.0);
  return test_exit();
}
