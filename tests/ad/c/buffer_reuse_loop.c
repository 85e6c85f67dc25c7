/* Local buffers reused on every iteration of an outer time loop (a small
 * recurrent cell h <- tanh(W h) + 0.5 h); x and W are dup.
 *
 * Forward mode (-DFORWARD_MODE): local buffers reused on every
 * iteration of an outer time loop (h <- tanh(W h) + 0.5 h); x and W both dup,
 * along two random directions. */
#include "kernel_test.h"

#define K 6

__attribute__((noinline)) double rnn(const double *x, const double *W, int iters) {
  double h[K], tmp[K];
  for (int k = 0; k < K; k++) h[k] = x[k];
  for (int it = 0; it < iters; it++) {
    for (int k = 0; k < K; k++) {
      double s = 0.0;
      for (int j = 0; j < K; j++) s += W[k * K + j] * h[j];
      tmp[k] = s;
    }
    for (int k = 0; k < K; k++) h[k] = tanh(tmp[k]) + 0.5 * h[k];
  }
  double s = 0.0;
  for (int k = 0; k < K; k++) s += h[k] * h[k] * (k + 1);
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { ITERS = 12, NP = K + K * K };
static double w_rnn(const double *p, void *ctx) { (void)ctx; return rnn(p, p + K, ITERS); }

int main(void) {
  double p[NP], v[NP];
  char name[32];
  rng_seed(16);
  rng_fill(p, K, -1.0, 1.0);
  rng_fill(p + K, K * K, -0.6, 0.6);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, NP, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)rnn, enzyme_dup, p, v, enzyme_dup, p + K, v + K,
                                enzyme_const, ITERS);
    snprintf(name, sizeof name, "rnn_jvp_%d", d);
    check_close(name, t, fd_dir(w_rnn, p, v, NP, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double rnn_tan(const double *x, const double *xd, const double *W, const double *Wd,
                      int iters) {
  double h[K], hd[K], tmp[K], tmpd[K];
  for (int k = 0; k < K; k++) { h[k] = x[k]; hd[k] = xd[k]; }
  for (int it = 0; it < iters; it++) {
    for (int k = 0; k < K; k++) {
      double s = 0.0, sd = 0.0;
      for (int j = 0; j < K; j++) {
        s += W[k * K + j] * h[j];
        sd += Wd[k * K + j] * h[j] + W[k * K + j] * hd[j];
      }
      tmp[k] = s;
      tmpd[k] = sd;
    }
    for (int k = 0; k < K; k++) {
      double t = tanh(tmp[k]);
      hd[k] = (1.0 - t * t) * tmpd[k] + 0.5 * hd[k];
      h[k] = t + 0.5 * h[k];
    }
  }
  double sd = 0.0;
  for (int k = 0; k < K; k++) sd += 2.0 * h[k] * hd[k] * (k + 1);
  return sd;
}
static void ref_grad_rnn(const double *x, double *dx, const double *W, double *dW, int iters) {
  double xd[K], Wd[K * K];
  for (int j = 0; j < K + K * K; j++) {
    zero_array(xd, K);
    zero_array(Wd, K * K);
    if (j < K) xd[j] = 1.0; else Wd[j - K] = 1.0;
    double g = rnn_tan(x, xd, W, Wd, iters);
    if (j < K) dx[j] += g; else dW[j - K] += g;
  }
}
#endif

static void grad_rnn(const double *x, double *dx, const double *W, double *dW, int iters) {
#ifdef REFERENCE_GRADIENT
  ref_grad_rnn(x, dx, W, dW, iters);
#else
  __enzyme_autodiff((void *)rnn, enzyme_dup, x, dx, enzyme_dup, W, dW, iters);
#endif
}

enum { ITERS = 12 };
static double xb[K], Wb[K * K];
static double w_x(const double *x, void *ctx) { (void)ctx; return rnn(x, Wb, ITERS); }
static double w_W(const double *W, void *ctx) { (void)ctx; return rnn(xb, W, ITERS); }

int main(void) {
  double dx[K], dW[K * K], fdx[K], fdW[K * K];
  rng_seed(16);
  rng_fill(xb, K, -1.0, 1.0);
  rng_fill(Wb, K * K, -0.6, 0.6);
  zero_array(dx, K);
  zero_array(dW, K * K);
  grad_rnn(xb, dx, Wb, dW, ITERS);
  fd_grad_array(w_x, xb, K, NULL, fdx);
  fd_grad_array(w_W, Wb, K * K, NULL, fdW);
  check_array("rnn_dx", dx, fdx, K, 1e-6, 1e-8);
  check_array("rnn_dW", dW, fdW, K * K, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
