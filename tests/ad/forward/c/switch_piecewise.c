/* A switch on an integer computed from the input selects the formula: the
 * tangent follows each case (checked inside every piece). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double pw(double x, double y) {
  int k = (int)floor(x);
  double r;
  switch (k) {
  case 0: r = x * y; break;
  case 1: r = sin(x) + y * y; break;
  case 2: r = exp(-x) * y; break;
  case 3: r = log(x) / (1.0 + y * y); break;
  default: r = x - y;
  }
  return r * r + floor(y);
}

static double w_pw(const double *v, void *ctx) {
  (void)ctx;
  return pw(v[0], v[1]);
}

int main(void) {
  double xs[6] = {0.5, 1.3, 2.7, 3.2, 5.5, -0.5};
  double v[2] = {1.0, -0.6};
  char name[32];
  for (int k = 0; k < 6; k++) {
    double p[2] = {xs[k], 0.35};
    double t = __enzyme_fwddiff((void *)pw, enzyme_dup, p[0], v[0], enzyme_dup, p[1], v[1]);
    snprintf(name, sizeof name, "case_%d", k);
    check_close(name, t, fd_dir(w_pw, p, v, 2, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
