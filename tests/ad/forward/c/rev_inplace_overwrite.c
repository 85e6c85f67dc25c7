/* Forward mode of tests/ad/c/inplace_overwrite.c: in-place updates of a dup
 * array followed by a reduction.  In forward mode the shadow of x holds the
 * tangent of the initial x on entry and of the final x on exit. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double sq_inplace(double *x, const double *c, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i];
  for (int i = 0; i < n - 1; i++) x[i] = sin(x[i]) + 0.5 * x[i + 1];
  x[n - 1] = x[n - 1] * x[0];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += c[i] * x[i];
  return s;
}

enum { N = 7 };
static double cc[N];
static double w_ret(const double *x, void *ctx) {
  (void)ctx;
  double xx[N];
  memcpy(xx, x, sizeof xx);
  return sq_inplace(xx, cc, N);
}
static void w_final(const double *x, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, x, N * sizeof(double));
  sq_inplace(out, cc, N);
}

int main(void) {
  double x0[N], v[N], x[N], dx[N], want[N], xfinal[N];
  rng_seed(14);
  rng_fill(x0, N, -1.2, 1.2);
  rng_fill(cc, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  memcpy(dx, v, sizeof dx);
  double t = __enzyme_fwddiff((void *)sq_inplace, enzyme_dup, x, dx, enzyme_const, cc,
                              enzyme_const, N);
  check_close("sq_inplace_jvp", t, fd_dir(w_ret, x0, v, N, NULL), 1e-6, 1e-8);
  fd_dir_vec(w_final, x0, v, N, want, N, NULL);
  check_array("sq_inplace_dx_final", dx, want, N, 1e-6, 1e-8);
  w_final(x0, xfinal, NULL);
  check_array("sq_inplace_primal_effect", x, xfinal, N, 1e-12, 1e-14);
  return test_exit();
}
