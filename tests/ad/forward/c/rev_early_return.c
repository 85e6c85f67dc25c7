/* Forward mode of tests/ad/c/early_return.c: guard clauses and a return from
 * inside a loop; each exit path is taken once. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double early(const double *x, int n) {
  if (n <= 1) return x[0] * x[0];
  if (x[0] < 0.0) return -x[0] * x[1] * 3.0;
  double s = 0.0;
  for (int i = 1; i < n; i++) {
    if (x[i] > 2.0) return s * x[i] + x[0];
    s += x[i] * x[i - 1];
  }
  return s + sqrt(x[0]);
}

enum { N = 10 };
static int nn;
static double w_early(const double *x, void *p) { (void)p; return early(x, nn); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(36);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, N, 0.2, 1.5);
    rng_fill(v, N, -1.0, 1.0);
    nn = N;
    if (t == 0) nn = 1;
    if (t == 1) x[0] = -0.8;
    if (t == 2) x[6] = 2.7;
    double d = __enzyme_fwddiff((void *)early, enzyme_dup, x, v, enzyme_const, nn);
    snprintf(name, sizeof name, "early_jvp_case%d", t);
    check_close(name, d, fd_dir(w_early, x, v, N, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
