/* Forward mode of tests/ad/whole/c/struct_return_sret.c: a noinline callee returns a
 * 32-byte struct (sret on x86-64), the first four power sums of an array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef struct {
  double s1, s2, s3, s4;
} moments;

__attribute__((noinline)) moments power_sums(const double *x, int n) {
  moments m = {0.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < n; i++) {
    double v = x[i];
    m.s1 += v;
    m.s2 += v * v;
    m.s3 += v * v * v;
    m.s4 += v * v * v * v;
  }
  return m;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  moments m = power_sums(x, n);
  double mean = m.s1 / n;
  return m.s2 / n - mean * mean + 0.1 * m.s3 + 0.01 * m.s4 * m.s1;
}

enum { N = 9 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(121);
  rng_fill(x, N, -1.5, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "struct_return_sret_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
