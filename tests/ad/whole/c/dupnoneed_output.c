/* enzyme_dupnoneed on an output array written by a noinline layer that calls
 * further noinline helpers: out = tanh(W x + b(x)); only the shadow (seed) of
 * out matters; it is consumed (zeroed) and dx receives W^T-style adjoints. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_layer(const double *x, double *dx, const double *W, double *out,
                           double *dout, int n, int m) {
  (void)out;
  for (int j = 0; j < m; j++) {
    double s = 0.1 * x[j % n] * x[(j + 1) % n];
    for (int i = 0; i < n; i++) s += W[j * n + i] * x[i];
    double t = tanh(s), g = dout[j] * (1.0 - t * t);
    for (int i = 0; i < n; i++) dx[i] += g * W[j * n + i];
    dx[j % n] += g * 0.1 * x[(j + 1) % n];
    dx[(j + 1) % n] += g * 0.1 * x[j % n];
    dout[j] = 0.0;
  }
}
#endif

static void grad_layer(const double *x, double *dx, const double *W, double *out, double *dout,
                       int n, int m) {
#ifdef REFERENCE_GRADIENT
  ref_grad_layer(x, dx, W, out, dout, n, m);
#else
  __enzyme_autodiff((void *)layer, enzyme_dup, x, dx, enzyme_const, W, enzyme_dupnoneed, out,
                    dout, enzyme_const, n, enzyme_const, m);
#endif
}

enum { N = 6, M = 4 };
static double Ws[M * N], seed[M];
static double w_x(const double *x, void *c) {
  (void)c;
  double out[M], s = 0.0;
  layer(x, Ws, out, N, M);
  for (int j = 0; j < M; j++) s += seed[j] * out[j];
  return s;
}

int main(void) {
  double x[N], dx[N], out[M], dout[M], fd[N], zeros[M];
  rng_seed(132);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(Ws, M * N, -0.8, 0.8);
  rng_fill(seed, M, -1.0, 1.0);
  zero_array(dx, N);
  zero_array(out, M);
  zero_array(zeros, M);
  memcpy(dout, seed, sizeof dout);
  grad_layer(x, dx, Ws, out, dout, N, M);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("dupnoneed_dx", dx, fd, N, 1e-6, 1e-9);
  check_array("dupnoneed_dout_zeroed", dout, zeros, M, 0.0, 0.0);
  return test_exit();
}
