/* if/else, a ternary, fabs and an early return on the way: tangents follow
 * the branch taken (checked on each side of every branch). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double piece(double x, double y) {
  if (x > 1.0) return x * x * y;
  double r;
  if (y < 0.0)
    r = sin(x) - y * y;
  else
    r = x * exp(-y);
  r = r > 0.5 ? r * r : r + x;
  return fabs(r) + 0.1 * x * y;
}

static double w_piece(const double *v, void *ctx) {
  (void)ctx;
  return piece(v[0], v[1]);
}

int main(void) {
  double pts[5][2] = {{1.5, 0.7}, {0.4, -0.8}, {0.9, 0.2}, {-0.6, 0.3}, {0.1, -0.05}};
  double v[2] = {0.7, -0.45};
  char name[32];
  for (int k = 0; k < 5; k++) {
    double t = __enzyme_fwddiff((void *)piece, enzyme_dup, pts[k][0], v[0], enzyme_dup,
                                pts[k][1], v[1]);
    snprintf(name, sizeof name, "piece_%d", k);
    check_close(name, t, fd_dir(w_piece, pts[k], v, 2, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
