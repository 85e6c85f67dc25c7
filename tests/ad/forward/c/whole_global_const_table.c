/* Forward mode of tests/ad/whole/c/global_const_table.c: constant global lookup tables
 * (inactive, no shadow) read on an active path. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

static const double coef[8] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5, -2.25, 1.0};
const double knots[5] = {0.1, 0.4, 0.9, 1.6, 2.5};

__attribute__((noinline)) double loss(const double *x, const int *bucket, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double k = knots[bucket[i]];
    s += coef[i % 8] * x[i] * x[i] + sin(k * x[i]);
  }
  return s;
}

enum { N = 13 };
static int buckets[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, buckets, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(123);
  rng_fill(x, N, -1.5, 1.5);
  for (int i = 0; i < N; i++) buckets[i] = (int)(rng_next() % 5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, buckets,
                                enzyme_const, N);
    snprintf(name, sizeof name, "const_table_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
