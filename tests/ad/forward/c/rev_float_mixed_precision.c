/* Forward mode of tests/ad/c/float_mixed_precision.c: float inputs accumulated
 * in double (fpext on the tangent path), a double tangent return and a float
 * output array written through fptrunc. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double mixed(const float *x, float *out, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = (double)x[i];
    s += v * v * 0.5 + sin(v);
    out[i] = (float)(s * v);
  }
  return s;
}

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
