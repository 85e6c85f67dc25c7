/* float inputs accumulated in double (fpext in the active data flow) with a
 * double return, plus a float output array written via fptrunc.
 *
 * Forward mode (-DFORWARD_MODE): float inputs accumulated
 * in double (fpext on the tangent path), a double tangent return and a float
 * output array written through fptrunc. */
#include "kernel_test.h"

__attribute__((noinline)) double mixed(const float *x, float *out, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = (double)x[i];
    s += v * v * 0.5 + sin(v);
    out[i] = (float)(s * v);
  }
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 16 };
static int which; /* -1: the return value, else out[which] */
static float w_mixed(const float *x, void *p) {
  (void)p;
  float out[N];
  double s = mixed(x, out, N);
  return which < 0 ? (float)s : out[which];
}

int main(void) {
  float x[N], v[N], out[N], dout[N];
  double want[N];
  rng_seed(45);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(v, N, -1.0, 1.0);
  zero_array_f(dout, N);
  double t = __enzyme_fwddiff((void *)mixed, enzyme_dup, x, v, enzyme_dup, out, dout,
                              enzyme_const, N);
  which = -1;
  check_close("mixed_jvp", t, fd_dir_f(w_mixed, x, v, N, NULL), 5e-3, 5e-3);
  /* exact tangents, in double */
  double s = 0.0, sd = 0.0;
  for (int i = 0; i < N; i++) {
    double xi = x[i], vi = v[i];
    s += xi * xi * 0.5 + sin(xi);
    sd += (xi + cos(xi)) * vi;
    want[i] = sd * xi + s * vi;
  }
  check_close("mixed_exact", t, sd, 1e-6, 1e-7);
  check_array_f("mixed_dout", dout, want, N, 1e-5, 1e-6);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_mixed(const float *x, float *dx, float *out, float *dout, int n) {
  double s[64], g[64], ds = 1.0; /* adjoint of the running sum, seeded by the return */
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    acc += v * v * 0.5 + sin(v);
    s[i] = acc;
  }
  mixed(x, out, n);
  for (int i = n - 1; i >= 0; i--) {
    double v = x[i], go = dout[i];
    dout[i] = 0.0f;
    ds += go * v;
    g[i] = go * s[i] + ds * (v + cos(v));
  }
  for (int i = 0; i < n; i++) dx[i] += (float)g[i];
}
#endif

static void grad_mixed(const float *x, float *dx, float *out, float *dout, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_mixed(x, dx, out, dout, n);
#else
  __enzyme_autodiff((void *)mixed, enzyme_dup, x, dx, enzyme_dup, out, dout, n);
#endif
}

enum { N = 16 };
static float seed[N];
static float w_mixed(const float *x, void *p) {
  (void)p;
  float out[N];
  double s = mixed(x, out, N);
  for (int i = 0; i < N; i++) s += seed[i] * out[i];
  return (float)s;
}

int main(void) {
  float x[N], dx[N], out[N], dout[N];
  double fd[N], zeros[N] = {0};
  rng_seed(45);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(seed, N, -0.5, 0.5);
  zero_array_f(dx, N);
  memcpy(dout, seed, sizeof dout);
  grad_mixed(x, dx, out, dout, N);
  fd_grad_array_f(w_mixed, x, N, NULL, fd);
  check_array_f("mixed_dx", dx, fd, N, 5e-3, 5e-3);
  check_array_f("mixed_dout_zeroed", dout, zeros, N, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
