/* Forward mode of tests/ad/whole/c/global_written_array.c: a mutable global array
 * written with active data by a noinline callee and read back. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

enum { N = 9 };
static double cache[N];

__attribute__((noinline)) void fill(const double *x, int n) {
  for (int i = 0; i < n; i++) cache[i] = x[i] * x[i];
}
__attribute__((noinline)) double loss(const double *x, int n) {
  fill(x, n);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += cache[i] * sin(cache[i]);
  return s;
}

static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(124);
  rng_fill(x, N, -1.2, 1.2);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "global_array_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
