/* Scatter-add with repeated indices: out[idx[i]] += x[i]^2 (read-modify-write
 * of a dup output).  d_out is the seed and keeps its value; d_x accumulates.
 *
 * Forward mode (-DFORWARD_MODE): scatter-add with repeated indices,
 * out[idx[i]] += x[i]^2 + 0.5 out[idx[i]] x[i] (read-modify-write of a dup
 * output whose shadow carries the input tangent in). */
#include "kernel_test.h"

__attribute__((noinline)) void scatter_add(const double *x, const int *idx, double *out,
                                           int n) {
  for (int i = 0; i < n; i++) out[idx[i]] += x[i] * x[i] + 0.5 * out[idx[i]] * x[i];
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 17, M = 6, NP = N + M };
static int ib[N];
/* p = x, out0 */
static void w_scatter(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N, M * sizeof(double));
  scatter_add(p, ib, out, N);
}

int main(void) {
  double p[NP], v[NP], out[M], dout[M], want[M];
  rng_seed(35);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  for (int i = 0; i < N; i++) ib[i] = (int)(rng_next() % M);
  memcpy(out, p + N, sizeof out);
  memcpy(dout, v + N, sizeof dout);
  __enzyme_fwddiff((void *)scatter_add, enzyme_dup, p, v, enzyme_const, ib, enzyme_dup, out,
                   dout, enzyme_const, N);
  fd_dir_vec(w_scatter, p, v, NP, want, M, NULL);
  check_array("scatter_add_dout", dout, want, M, 1e-6, 1e-9);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_scatter_add(const double *x, double *dx, const int *idx, double *out,
                                 double *dout, int n) {
  /* reverse sweep needs the value of out[idx[i]] before each update */
  double before[64];
  for (int i = 0; i < n; i++) {
    before[i] = out[idx[i]];
    out[idx[i]] += x[i] * x[i] + 0.5 * out[idx[i]] * x[i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double g = dout[idx[i]]; /* adjoint of the new value */
    dx[i] += g * (2.0 * x[i] + 0.5 * before[i]);
    dout[idx[i]] = g * (1.0 + 0.5 * x[i]); /* adjoint of the old value */
  }
}
#endif

static void grad_scatter_add(const double *x, double *dx, const int *idx, double *out,
                             double *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_scatter_add(x, dx, idx, out, dout, n);
#else
  __enzyme_autodiff((void *)scatter_add, enzyme_dup, x, dx, enzyme_const, idx, enzyme_dup, out,
                    dout, n);
#endif
}

enum { N = 17, M = 6 };
static int ib[N];
static double ob[M], seed[M];
static double seeded(const double *x, const double *o0) {
  double out[M], s = 0.0;
  memcpy(out, o0, sizeof out);
  scatter_add(x, ib, out, N);
  for (int i = 0; i < M; i++) s += seed[i] * out[i];
  return s;
}
static double xb[N];
static double w_x(const double *x, void *p) { (void)p; return seeded(x, ob); }
static double w_o(const double *o, void *p) { (void)p; return seeded(xb, o); }

int main(void) {
  double dx[N], out[M], dout[M], fdx[N], fdo[M];
  rng_seed(35);
  rng_fill(xb, N, -1.0, 1.0);
  rng_fill(ob, M, -1.0, 1.0);
  rng_fill(seed, M, -1.0, 1.0);
  for (int i = 0; i < N; i++) ib[i] = (int)(rng_next() % M);
  zero_array(dx, N);
  memcpy(out, ob, sizeof out);
  memcpy(dout, seed, sizeof dout);
  grad_scatter_add(xb, dx, ib, out, dout, N);
  fd_grad_array(w_x, xb, N, NULL, fdx);
  fd_grad_array(w_o, ob, M, NULL, fdo);
  check_array("scatter_add_dx", dx, fdx, N, 1e-6, 1e-9);
  check_array("scatter_add_dout_in", dout, fdo, M, 1e-6, 1e-9);
  return test_exit();
}
#endif /* FORWARD_MODE */
