/* float softmax into a dup output array (seed in d_out, zeroed by the
 * gradient).
 *
 * Forward mode (-DFORWARD_MODE): float softmax (fmaxf shift,
 * expf, normalisation) into a dup output array. */
#include "kernel_test.h"

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

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

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
#endif /* FORWARD_MODE */
