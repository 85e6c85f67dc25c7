/* Forward mode of tests/ad/c/while_bisection_interp.c: a data-dependent
 * bisection while loop then linear interpolation; x and the values carry
 * tangents, the knots are enzyme_const. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double interp(double x, const double *t, const double *v, int n) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  double s = (x - t[lo]) / (t[hi] - t[lo]);
  return v[lo] + s * (v[hi] - v[lo]) + 0.1 * x * x;
}

enum { N = 13 };
static double tk[N];
/* p = x, v[0..N) */
static double w_interp(const double *p, void *ctx) { (void)ctx; return interp(p[0], tk, p + 1, N); }

int main(void) {
  double p[N + 1], d[N + 1];
  rng_seed(13);
  tk[0] = 0.0;
  for (int i = 1; i < N; i++) tk[i] = tk[i - 1] + rng_uniform(0.5, 1.5);
  rng_fill(p + 1, N, -2.0, 2.0);
  char name[64];
  for (int k = 0; k < 5; k++) {
    int seg = 1 + 2 * k;
    p[0] = tk[seg] + 0.37 * (tk[seg + 1] - tk[seg]);
    rng_fill(d, N + 1, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)interp, enzyme_dup, p[0], d[0], enzyme_const, tk,
                                enzyme_dup, p + 1, d + 1, enzyme_const, N);
    snprintf(name, sizeof name, "interp_jvp_%d", k);
    check_close(name, t, fd_dir(w_interp, p, d, N + 1, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
