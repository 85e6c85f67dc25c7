/* Forward mode of tests/ad/whole/c/recursion_mutual.c: mutual recursion (not tail
 * calls) over an array, ping(i) = x[i] pong(i-1) + 0.5, pong(i) = sin(ping(i-1)) + x[i]. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double pong(const double *x, int i);

__attribute__((noinline)) double ping(const double *x, int i) {
  if (i < 0) return 1.0;
  return x[i] * pong(x, i - 1) + 0.5;
}
__attribute__((noinline)) double pong(const double *x, int i) {
  if (i < 0) return 0.3;
  return sin(ping(x, i - 1)) + x[i];
}

enum { N = 9 };
static double w_x(const double *x, void *c) { (void)c; return ping(x, N - 1); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(106);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)ping, enzyme_dup, x, v, enzyme_const, N - 1);
    snprintf(name, sizeof name, "mutual_ping_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
