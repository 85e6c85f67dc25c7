/* Elementwise out[i] = 2 exp(x[i]) + x[i] * tanh(x[i]) over a runtime length
 * (vectorizable at -O2), into a dup output array seeded in d_out. */
#include "enzyme_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void vexp(const double *restrict x, double *restrict out, int n) {
  for (int i = 0; i < n; i++) out[i] = 2.0 * exp(x[i]) + x[i] * tanh(x[i]);
}

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
