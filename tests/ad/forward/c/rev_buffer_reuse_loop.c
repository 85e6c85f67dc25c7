/* Forward mode of tests/ad/c/buffer_reuse_loop.c: local buffers reused on every
 * iteration of an outer time loop (h <- tanh(W h) + 0.5 h); x and W both dup,
 * along two random directions. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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
