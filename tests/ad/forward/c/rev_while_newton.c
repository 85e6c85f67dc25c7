/* Forward mode of tests/ad/c/while_newton.c: Newton iteration with a
 * data-dependent exit for the real root of y^3 + p y - q = 0, with tangents
 * on p and q. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double cubic_root(double p, double q) {
  double y = q / (p + 1.5); /* never the exact root at the test points */
  int it = 0;
  double g = y * y * y + p * y - q;
  while (fabs(g) > 1e-14 * (1.0 + fabs(q)) && it < 100) {
    y = y - g / (3.0 * y * y + p);
    g = y * y * y + p * y - q;
    it++;
  }
  return y;
}

static double w_root(const double *pq, void *ctx) { (void)ctx; return cubic_root(pq[0], pq[1]); }

int main(void) {
  static const double pq[][2] = {{1.0, 2.0}, {0.5, -3.0}, {3.0, 0.7}, {2.0, 10.0}};
  double v[2];
  char name[64];
  rng_seed(50);
  for (int k = 0; k < 4; k++) {
    rng_fill(v, 2, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)cubic_root, enzyme_dup, pq[k][0], v[0], enzyme_dup,
                                pq[k][1], v[1]);
    snprintf(name, sizeof name, "cubic_root_jvp_%d", k);
    check_close(name, t, fd_dir(w_root, pq[k], v, 2, NULL), 1e-6, 1e-9);
    /* implicit function theorem: dy = (dq - y dp) / (3 y^2 + p) */
    double y = cubic_root(pq[k][0], pq[k][1]);
    snprintf(name, sizeof name, "cubic_root_ift_%d", k);
    check_close(name, t, (v[1] - y * v[0]) / (3.0 * y * y + pq[k][0]), 1e-8, 1e-12);
  }
  return test_exit();
}
