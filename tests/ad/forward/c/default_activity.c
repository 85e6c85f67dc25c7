/* Unmarked arguments default as in Enzyme's forward mode: an int is const, a
 * double is dup (value then tangent), a pointer is dup (pointer then shadow). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double mixed(double a, const double *x, int n, double b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += cos(a * x[i]) * (b + i);
  return s;
}

enum { N = 10, P = N + 2 };
static double w_mixed(const double *v, void *ctx) {
  (void)ctx;
  return mixed(v[0], v + 1, N, v[N + 1]);
}

int main(void) {
  double p[P], v[P];
  rng_seed(37);
  rng_fill(p, P, -1.0, 1.0);
  rng_fill(v, P, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)mixed, p[0], v[0], p + 1, v + 1, N, p[N + 1], v[N + 1]);
  check_close("defaults", t, fd_dir(w_mixed, p, v, P, NULL), 1e-6, 1e-9);
  double t2 = __enzyme_fwddiff((void *)mixed, enzyme_dup, p[0], v[0], enzyme_dup, p + 1, v + 1,
                               enzyme_const, N, enzyme_dup, p[N + 1], v[N + 1]);
  check_close("defaults_eq_marked", t, t2, 0.0, 0.0);
  return test_exit();
}
