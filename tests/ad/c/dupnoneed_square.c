/* enzyme_dupnoneed: the primal output array is not needed by the caller, only
 * its shadow (the seed).  out[i] = x[i]^2 * x[i+1] + sqrt(1 + x[i]^2).
 *
 * Forward mode (-DFORWARD_MODE): the output array is
 * enzyme_dupnoneed (only its tangent is wanted).
 * out[i] = x[i]^2 * x[i+1] + sqrt(1 + x[i]^2). */
#include "kernel_test.h"

__attribute__((noinline)) void sq_next(const double *x, double *out, int n) {
  for (int i = 0; i < n - 1; i++) out[i] = x[i] * x[i] * x[i + 1] + sqrt(1.0 + x[i] * x[i]);
  out[n - 1] = x[n - 1];
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 15 };
static void w_sq(const double *x, double *out, void *c) { (void)c; sq_next(x, out, N); }

int main(void) {
  double x[N], v[N], out[N], dout[N], want[N];
  rng_seed(25);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(v, N, -1.0, 1.0);
  zero_array(out, N);
  zero_array(dout, N);
  __enzyme_fwddiff((void *)sq_next, enzyme_dup, x, v, enzyme_dupnoneed, out, dout,
                   enzyme_const, N);
  fd_dir_vec(w_sq, x, v, N, want, N, NULL);
  check_array("sq_next_dout", dout, want, N, 1e-6, 1e-8);
  for (int i = 0; i < N - 1; i++)
    want[i] = (2.0 * x[i] * x[i + 1] + x[i] / sqrt(1.0 + x[i] * x[i])) * v[i] +
              x[i] * x[i] * v[i + 1];
  want[N - 1] = v[N - 1];
  check_array("sq_next_dout_exact", dout, want, N, 1e-13, 1e-14);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_sq_next(const double *x, double *dx, double *out, double *dout, int n) {
  (void)out; /* dupnoneed: primal output not required */
  for (int i = 0; i < n - 1; i++) {
    dx[i] += dout[i] * (2.0 * x[i] * x[i + 1] + x[i] / sqrt(1.0 + x[i] * x[i]));
    dx[i + 1] += dout[i] * x[i] * x[i];
    dout[i] = 0.0;
  }
  dx[n - 1] += dout[n - 1];
  dout[n - 1] = 0.0;
}
#endif

static void grad_sq_next(const double *x, double *dx, double *out, double *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_sq_next(x, dx, out, dout, n);
#else
  __enzyme_autodiff((void *)sq_next, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout,
                    enzyme_const, n);
#endif
}

enum { N = 15 };
static double seed[N];
static double w_sq(const double *x, void *c) {
  (void)c;
  double out[N], s = 0.0;
  sq_next(x, out, N);
  for (int i = 0; i < N; i++) s += seed[i] * out[i];
  return s;
}

int main(void) {
  double x[N], dx[N], out[N], dout[N], fd[N], zeros[N];
  rng_seed(25);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(seed, N, -1.0, 1.0);
  zero_array(dx, N);
  zero_array(out, N);
  zero_array(zeros, N);
  memcpy(dout, seed, sizeof dout);
  grad_sq_next(x, dx, out, dout, N);
  fd_grad_array(w_sq, x, N, NULL, fd);
  check_array("sq_next_dx", dx, fd, N, 1e-6, 1e-8);
  check_array("sq_next_dout_zeroed", dout, zeros, N, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
