/* Forward mode of tests/ad/whole/c/struct_return_small.c: struct returns in registers
 * (a complex number {re, im}) multiplied along an array. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef struct {
  double re, im;
} cplx;

__attribute__((noinline)) cplx cmul(cplx a, cplx b) {
  cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}
__attribute__((noinline)) cplx unit(double t) {
  cplx r = {cos(t), 0.5 * sin(t)};
  return r;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  cplx z = {1.0, 0.0};
  for (int i = 0; i < n; i++) z = cmul(z, unit(x[i]));
  return z.re * z.re + z.im * z.im + z.re;
}

enum { N = 7 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(120);
  rng_fill(x, N, -1.5, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "struct_return_small_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
