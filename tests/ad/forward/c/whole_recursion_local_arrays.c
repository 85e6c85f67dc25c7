/* Forward mode of tests/ad/whole/c/recursion_local_arrays.c: a recursion with a
 * fixed-size local buffer and a variable-length array in each frame. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double rec(const double *x, int n, int depth) {
  double fixed[4];
  double vla[n];
  for (int i = 0; i < 4; i++) fixed[i] = sin(x[(i + depth) % n]) * x[i % n];
  for (int i = 0; i < n; i++) vla[i] = cos(x[i]) * x[(i + depth) % n];
  double s = fixed[0] * fixed[1] + fixed[2] * fixed[3];
  if (depth > 0) s += 0.5 * rec(x, n, depth - 1) * (fixed[depth % 4] + vla[depth % n]);
  for (int i = 0; i < n; i++) s += vla[i] * vla[(i + 1) % n];
  return s;
}

__attribute__((noinline)) double loss(const double *x, int n) { return rec(x, n, 6); }

enum { N = 7 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(139);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "local_arrays_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
