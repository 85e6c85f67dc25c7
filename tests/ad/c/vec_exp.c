/* Elementwise out[i] = 2 exp(x[i]) + x[i] * tanh(x[i]) over a runtime length
 * (vectorizable at -O2), into a dup output array seeded in d_out.
 *
 * Forward mode (-DFORWARD_MODE): elementwise
 * out[i] = 2 exp(x[i]) + x[i] tanh(x[i]) over a runtime length (restrict
 * pointers, vectorized at -O2) into a dup output array. */
#include "kernel_test.h"

__attribute__((noinline)) void vexp(const double *restrict x, double *restrict out, int n) {
  for (int i = 0; i < n; i++) out[i] = 2.0 * exp(x[i]) + x[i] * tanh(x[i]);
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_vexp(const double *x, double *dx, double *out, double *dout, int n) {
  vexp(x, out, n);
  for (int i = 0; i < n; i++) {
    double t = tanh(x[i]);
    dx[i] += dout[i] * (2.0 * exp(x[i]) + t + x[i] * (1.0 - t * t));
    dout[i] = 0.0;
  }
}
#endif

static void grad_vexp(const double *x, double *dx, double *out, double *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_vexp(x, dx, out, dout, n);
#else
  __enzyme_autodiff((void *)vexp, enzyme_dup, x, dx, enzyme_dup, out, dout, n);
#endif
}

enum { N = 66 };
static double seed[N];
static double w_vexp(const double *x, void *c) {
  (void)c;
  double out[N], s = 0.0;
  vexp(x, out, N);
  for (int i = 0; i < N; i++) s += seed[i] * out[i];
  return s;
}

int main(void) {
  double x[N], dx[N], out[N], dout[N], fd[N], zeros[N];
  rng_seed(24);
  rng_fill(x, N, -2.0, 2.0);
  rng_fill(seed, N, -1.0, 1.0);
  zero_array(dx, N);
  zero_array(zeros, N);
  memcpy(dout, seed, sizeof dout);
  grad_vexp(x, dx, out, dout, N);
  fd_grad_array(w_vexp, x, N, NULL, fd);
  check_array("vexp_dx", dx, fd, N, 1e-6, 1e-8);
  check_array("vexp_dout_zeroed", dout, zeros, N, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
