/* Forward mode of tests/ad/whole/c/global_scalar_state.c: a mutable global scalar
 * carries active state between two noinline calls. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

double g_acc;

__attribute__((noinline)) void accumulate(double v) { g_acc += v * v; }
__attribute__((noinline)) double finish(void) { return sqrt(1.0 + g_acc); }
__attribute__((noinline)) double loss(const double *x, int n) {
  g_acc = 0.0;
  for (int i = 0; i < n; i++) accumulate(x[i] + 0.5 * x[(i + 1) % n]);
  return finish();
}

enum { N = 8 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(125);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "global_scalar_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
