/* memmove shifts active data inside a dup array, memset clears part of a
 * local buffer: tangents move and clear alike. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double shift_clear(double *x, int n, int k) {
  double tmp[32];
  memmove(x + 1, x, (n - 1) * sizeof(double));
  x[0] = x[n - 1] * 0.5;
  for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i];
  memset(tmp, 0, k * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++) s += tmp[i] * (i + 1);
  return s;
}

enum { N = 13, K = 4 };
static double w_sc(const double *v, void *ctx) {
  (void)ctx;
  double x[N];
  memcpy(x, v, sizeof x);
  return shift_clear(x, N, K);
}
static void w_sc_x(const double *v, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, v, sizeof(double) * N);
  shift_clear(out, N, K);
}

int main(void) {
  double x0[N], x[N], dx[N], want[N];
  rng_seed(17);
  rng_fill(x0, N, -1.0, 1.0);
  rng_fill(dx, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  double v[N];
  memcpy(v, dx, sizeof v);
  double t = __enzyme_fwddiff((void *)shift_clear, enzyme_dup, x, dx, enzyme_const, N,
                              enzyme_const, K);
  check_close("shift_clear", t, fd_dir(w_sc, x0, v, N, NULL), 1e-6, 1e-9);
  fd_dir_vec(w_sc_x, x0, v, N, want, N, NULL);
  check_array("shift_clear_dx", dx, want, N, 1e-7, 1e-9);
  return test_exit();
}
