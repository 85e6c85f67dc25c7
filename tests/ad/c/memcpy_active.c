/* memcpy of active data into a local buffer and from the buffer into a dup
 * output array; seed in d_out, which the gradient zeroes. */
#include "kernel_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void copy_mix(const double *x, double *out, int n) {
  double buf[32];
  memcpy(buf, x, n * sizeof(double));
  for (int i = 0; i < n; i++) buf[i] = buf[i] * x[(i + 1) % n] + 1.0;
  memcpy(out, buf, n * sizeof(double));
  out[0] += out[n - 1] * x[0];
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_copy_mix(const double *x, double *dx, double *out, double *dout, int n) {
  double a[32];
  copy_mix(x, out, n);
  double last = x[n - 1] * x[0] + 1.0; /* buf[n-1] */
  for (int i = 0; i < n; i++) a[i] = dout[i];
  a[n - 1] += dout[0] * x[0];
  dx[0] += dout[0] * last;
  for (int i = 0; i < n; i++) {
    dx[i] += a[i] * x[(i + 1) % n];
    dx[(i + 1) % n] += a[i] * x[i];
    dout[i] = 0.0;
  }
}
#endif

static void grad_copy_mix(const double *x, double *dx, double *out, double *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_copy_mix(x, dx, out, dout, n);
#else
  __enzyme_autodiff((void *)copy_mix, enzyme_dup, x, dx, enzyme_dup, out, dout, n);
#endif
}

enum { N = 11 };
static double seed[N];
static double w_copy(const double *x, void *ctx) {
  (void)ctx;
  double out[N], s = 0.0;
  copy_mix(x, out, N);
  for (int i = 0; i < N; i++) s += seed[i] * out[i];
  return s;
}

int main(void) {
  double x[N], dx[N], out[N], dout[N], fd[N], zeros[N], want[N];
  rng_seed(20);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(seed, N, -1.0, 1.0);
  zero_array(dx, N);
  zero_array(out, N);
  zero_array(zeros, N);
  memcpy(dout, seed, sizeof dout);
  grad_copy_mix(x, dx, out, dout, N);
  fd_grad_array(w_copy, x, N, NULL, fd);
  check_array("copy_mix_dx", dx, fd, N, 1e-6, 1e-8);
  check_array("copy_mix_dout_zeroed", dout, zeros, N, 0.0, 0.0);
  copy_mix(x, want, N);
  check_array("copy_mix_primal_out", out, want, N, 1e-12, 1e-14);
  return test_exit();
}
