/* Forward mode of tests/ad/c/loop_break_continue.c: a loop with continue
 * (skip negative entries) and a data-dependent break, with and without the
 * break taken. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double capped_sum(const double *x, int n, double limit) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0) continue;
    s += x[i] * x[i] + sin(x[i]);
    if (s > limit) break;
  }
  return s * s;
}

enum { N = 24 };
static double w_capped(const double *x, void *ctx) { return capped_sum(x, N, *(double *)ctx); }

int main(void) {
  double x[N], v[N];
  rng_seed(12);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  /* the limit lies halfway between two consecutive partial sums, so the exit
   * iteration does not move under the finite-difference perturbation */
  double s = 0.0, prev = 0.0, limit = 1e300;
  int seen = 0;
  for (int i = 0; i < N; i++) {
    if (x[i] < 0.0) continue;
    prev = s;
    s += x[i] * x[i] + sin(x[i]);
    if (++seen == 6) { limit = 0.5 * (prev + s); break; }
  }
  char name[64];
  double limits[2] = {limit, 1e300};
  for (int k = 0; k < 2; k++) {
    double t = __enzyme_fwddiff((void *)capped_sum, enzyme_dup, x, v, enzyme_const, N,
                                enzyme_const, limits[k]);
    snprintf(name, sizeof name, "capped_sum_jvp_%s", k ? "nobreak" : "break");
    check_close(name, t, fd_dir(w_capped, x, v, N, &limits[k]), 1e-6, 1e-8);
  }
  return test_exit();
}
