/* Forward mode of tests/ad/whole/c/struct_byval.c: a 40-byte struct passed by value to a
 * noinline callee (byval on x86-64) inside a least-squares loop; the parameter struct is
 * dup, its shadow struct holds the direction. */
#include "fwd_test.h"
#include <string.h>

double __enzyme_fwddiff(void *, ...);

typedef struct {
  double a, b, c, d, e;
} params;

__attribute__((noinline)) double model(params p, double t) {
  return p.a * exp(-p.b * t) + p.c * sin(p.d * t + p.e);
}
__attribute__((noinline)) double loss(const params *pp, const double *t, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = model(*pp, t[i]) - y[i];
    s += r * r;
  }
  return s;
}

enum { N = 12 };
static double ts[N], ys[N];
static double w_p(const double *flat, void *c) {
  (void)c;
  params p;
  memcpy(&p, flat, sizeof p);
  return loss(&p, ts, ys, N);
}

int main(void) {
  params p = {1.2, 0.7, 0.5, 2.1, 0.3}, dp;
  char name[64];
  rng_seed(122);
  rng_fill(ts, N, 0.0, 3.0);
  rng_fill(ys, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill((double *)&dp, 5, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &p, &dp, enzyme_const, ts,
                                enzyme_const, ys, enzyme_const, N);
    snprintf(name, sizeof name, "byval_jvp_%d", d);
    check_close(name, t, fd_dir(w_p, (const double *)&p, (const double *)&dp, 5, NULL), 1e-6,
                1e-9);
  }
  return test_exit();
}
