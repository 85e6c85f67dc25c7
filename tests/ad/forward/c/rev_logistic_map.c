/* Forward mode of tests/ad/c/logistic_map.c: a loop-carried scalar recurrence
 * x <- r x (1 - x) with tangents on the rate and the starting value; the step
 * count is an unannotated int. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double logistic(double r, double x0, int n) {
  double x = x0, acc = 0.0;
  for (int i = 0; i < n; i++) {
    x = r * x * (1.0 - x);
    acc += x / (i + 1);
  }
  return acc;
}

enum { STEPS = 40 };
static double w_logistic(const double *p, void *c) { (void)c; return logistic(p[0], p[1], STEPS); }

int main(void) {
  static const double rx[][2] = {{2.5, 0.2}, {2.9, 0.7}, {1.7, 0.45}};
  static const double dirs[][2] = {{1.0, 0.0}, {0.0, 1.0}, {0.6, -0.8}};
  char name[64];
  for (int k = 0; k < 3; k++) {
    for (int d = 0; d < 3; d++) {
      double t = __enzyme_fwddiff((void *)logistic, enzyme_dup, rx[k][0], dirs[d][0],
                                  enzyme_dup, rx[k][1], dirs[d][1], STEPS);
      snprintf(name, sizeof name, "logistic_jvp_%d_%d", k, d);
      check_close(name, t, fd_dir(w_logistic, rx[k], dirs[d], 2, NULL), 1e-6, 1e-9);
    }
  }
  return test_exit();
}
