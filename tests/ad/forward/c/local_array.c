/* A local stack array of active data (prefix sums of squares) read back in
 * a second loop: its shadow is a zeroed local array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double prefix_energy(const double *x, int n) {
  double buf[64];
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    acc += x[i] * x[i];
    buf[i] = acc;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(buf[i]) * x[n - 1 - i];
  return s;
}

enum { N = 23 };
static double w_pe(const double *v, void *ctx) {
  (void)ctx;
  return prefix_energy(v, N);
}

int main(void) {
  double x[N], dx[N];
  rng_seed(11);
  rng_fill(x, N, -0.5, 0.5);
  rng_fill(dx, N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)prefix_energy, enzyme_dup, x, dx, enzyme_const, N);
  check_close("prefix_energy", t, fd_dir(w_pe, x, dx, N, NULL), 1e-6, 1e-9);
  return test_exit();
}
