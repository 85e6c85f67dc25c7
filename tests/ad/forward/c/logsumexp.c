/* Stable log-sum-exp (a running max with fmax, then exp and log) and a
 * product loop, checked along random directions. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double lse(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++) m = fmax(m, x[i]);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

__attribute__((noinline)) double prod(const double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) p *= x[i];
  return p;
}

enum { N = 15 };
static double w_lse(const double *v, void *ctx) {
  (void)ctx;
  return lse(v, N);
}
static double w_prod(const double *v, void *ctx) {
  (void)ctx;
  return prod(v, N);
}

int main(void) {
  double x[N], dx[N];
  rng_seed(31);
  rng_fill(x, N, -3.0, 3.0);
  char name[32];
  for (int k = 0; k < 3; k++) {
    rng_fill(dx, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)lse, enzyme_dup, x, dx, N);
    snprintf(name, sizeof name, "lse_%d", k);
    check_close(name, t, fd_dir(w_lse, x, dx, N, NULL), 1e-6, 1e-9);
  }
  double y[N];
  rng_fill(y, N, 0.5, 1.5);
  double t = __enzyme_fwddiff((void *)prod, enzyme_dup, y, dx, N);
  check_close("prod", t, fd_dir(w_prod, y, dx, N, NULL), 1e-6, 1e-9);
  return test_exit();
}
