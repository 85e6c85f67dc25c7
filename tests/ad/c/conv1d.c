/* 1-D valid convolution into an output array; signal, kernel and output all
 * dup (seeded output shadow).
 *
 * Forward mode (-DFORWARD_MODE): 1-D valid convolution into an output
 * array; signal and kernel dup, the output's shadow receives the tangent. */
#include "kernel_test.h"

__attribute__((noinline)) void conv1d(const double *sig, const double *ker, double *out, int n,
                                      int k) {
  for (int i = 0; i + k <= n; i++) {
    double s = 0.0;
    for (int j = 0; j < k; j++) s += ker[j] * sig[i + j];
    out[i] = s;
  }
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 20, KW = 5, NO = N - KW + 1, NP = N + KW };
static void w_conv(const double *p, double *out, void *ctx) {
  (void)ctx;
  conv1d(p, p + N, out, N, KW);
}

int main(void) {
  double p[NP], v[NP], out[NO], dout[NO], want[NO], prim[NO];
  rng_seed(34);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  zero_array(dout, NO);
  __enzyme_fwddiff((void *)conv1d, enzyme_dup, p, v, enzyme_dup, p + N, v + N, enzyme_dup, out,
                   dout, enzyme_const, N, enzyme_const, KW);
  fd_dir_vec(w_conv, p, v, NP, want, NO, NULL);
  check_array("conv1d_dout", dout, want, NO, 1e-6, 1e-9);
  w_conv(p, prim, NULL);
  check_array("conv1d_primal", out, prim, NO, 1e-15, 0.0);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_conv1d(const double *sig, double *dsig, const double *ker, double *dker,
                            double *out, double *dout, int n, int k) {
  conv1d(sig, ker, out, n, k);
  for (int i = 0; i + k <= n; i++) {
    for (int j = 0; j < k; j++) {
      dker[j] += dout[i] * sig[i + j];
      dsig[i + j] += dout[i] * ker[j];
    }
    dout[i] = 0.0;
  }
}
#endif

static void grad_conv1d(const double *sig, double *dsig, const double *ker, double *dker,
                        double *out, double *dout, int n, int k) {
#ifdef REFERENCE_GRADIENT
  ref_grad_conv1d(sig, dsig, ker, dker, out, dout, n, k);
#else
  __enzyme_autodiff((void *)conv1d, enzyme_dup, sig, dsig, enzyme_dup, ker, dker, enzyme_dup,
                    out, dout, n, k);
#endif
}

enum { N = 20, KW = 5, NO = N - KW + 1 };
static double sb[N], kb[KW], seed[NO];
static double seeded(const double *s, const double *k) {
  double out[NO], r = 0.0;
  conv1d(s, k, out, N, KW);
  for (int i = 0; i < NO; i++) r += seed[i] * out[i];
  return r;
}
static double w_s(const double *s, void *p) { (void)p; return seeded(s, kb); }
static double w_k(const double *k, void *p) { (void)p; return seeded(sb, k); }

int main(void) {
  double ds[N], dk[KW], out[NO], dout[NO], fds[N], fdk[KW], zeros[NO];
  rng_seed(34);
  rng_fill(sb, N, -1.0, 1.0);
  rng_fill(kb, KW, -1.0, 1.0);
  rng_fill(seed, NO, -1.0, 1.0);
  zero_array(ds, N);
  zero_array(dk, KW);
  zero_array(zeros, NO);
  memcpy(dout, seed, sizeof dout);
  grad_conv1d(sb, ds, kb, dk, out, dout, N, KW);
  fd_grad_array(w_s, sb, N, NULL, fds);
  fd_grad_array(w_k, kb, KW, NULL, fdk);
  check_array("conv1d_dsig", ds, fds, N, 1e-6, 1e-9);
  check_array("conv1d_dker", dk, fdk, KW, 1e-6, 1e-9);
  check_array("conv1d_dout_zeroed", dout, zeros, NO, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
