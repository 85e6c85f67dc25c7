/* A recursive callee cannot be inlined: the call goes to the callee's own
 * forward derivative (which calls itself). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double horner_rec(double x, const double *c, int n) {
  if (n == 0) return c[0];
  return c[n] + x * horner_rec(x, c, n - 1) * 0.5 + sin(x) * 0.01 * n;
}

__attribute__((noinline)) double outer(double x, const double *c, int n) {
  return horner_rec(x * x, c, n) + horner_rec(x, c, n / 2);
}

enum { N = 8, P = N + 2 };
static double w_outer(const double *v, void *ctx) {
  (void)ctx;
  return outer(v[0], v + 1, N);
}

int main(void) {
  double p[P], v[P];
  rng_seed(41);
  rng_fill(p, P, -1.0, 1.0);
  rng_fill(v, P, -1.0, 1.0);
  double tx = __enzyme_fwddiff((void *)outer, enzyme_dup, p[0], v[0], enzyme_const, p + 1,
                               enzyme_const, N);
  double vx[P];
  zero_array(vx, P);
  vx[0] = v[0];
  check_close("recursive_x", tx, fd_dir(w_outer, p, vx, P, NULL), 1e-6, 1e-9);
  return test_exit();
}
