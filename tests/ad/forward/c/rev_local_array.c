/* Forward mode of tests/ad/c/local_array.c: fixed-size local arrays written
 * and re-read, including a loop-carried update of the local array itself. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double local_mix(const double *x) {
  double t[8], u[4];
  for (int i = 0; i < 8; i++) t[i] = x[i] * x[7 - i];
  for (int i = 1; i < 8; i++) t[i] += 0.3 * t[i - 1];
  for (int i = 0; i < 4; i++) u[i] = t[2 * i] - exp(0.2 * t[2 * i + 1]);
  double s = 0.0;
  for (int i = 0; i < 8; i++) s += t[i] * t[i];
  for (int i = 0; i < 4; i++) s += u[i] * x[i];
  return s;
}

static double w_local(const double *x, void *ctx) { (void)ctx; return local_mix(x); }

int main(void) {
  double x[8], v[8];
  char name[32];
  rng_seed(19);
  rng_fill(x, 8, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 8, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)local_mix, enzyme_dup, x, v);
    snprintf(name, sizeof name, "local_mix_jvp_%d", d);
    check_close(name, t, fd_dir(w_local, x, v, 8, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
