/* Forward mode of tests/ad/whole/c/recursion_divide_conquer.c: divide-and-conquer
 * recursion over array halves, two recursive calls combined nonlinearly. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double dc(const double *x, int n) {
  if (n == 1) return x[0] * x[0];
  int h = n / 2;
  double a = dc(x, h), b = dc(x + h, n - h);
  return sqrt(a * a + b * b + 1.0);
}

enum { N = 13 };
static double w_x(const double *x, void *c) { (void)c; return dc(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(107);
  rng_fill(x, N, -1.5, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)dc, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "divide_conquer_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
