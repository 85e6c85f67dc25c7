/* Forward mode of tests/ad/whole/c/fnptr_unknown_global.c: an indirect call through a
 * mutable global function pointer set at run time, on the active path. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef double (*unary)(double);

__attribute__((noinline)) double f_cube(double v) { return v * v * v; }
__attribute__((noinline)) double f_expm(double v) { return exp(-v); }

unary g_hook;

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(g_hook(x[i]));
  return s;
}

enum { N = 6 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(int argc, char **argv) {
  (void)argv;
  g_hook = argc > 5 ? f_expm : f_cube;
  double x[N], v[N];
  char name[64];
  rng_seed(128);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "unknown_global_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
