/* Forward mode of tests/ad/c/switch_piecewise.c: switch statements on an
 * integer argument (unannotated, so const) and on a segment index computed
 * from the active input. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double by_mode(double x, int mode) {
  double r;
  switch (mode) {
  case 0: r = x * x; break;
  case 1: r = sin(x) * x; break;
  case 2: r = exp(0.5 * x); break;
  case 3: r = x * x * x - x; break;
  case 7: r = 1.0 / (1.0 + x * x); break;
  default: r = 2.0 * x; break;
  }
  return r + 1.0;
}

__attribute__((noinline)) double segments(double x) {
  int k = (int)floor(x);
  double t = x - k;
  switch (k) {
  case 0: return t * t;
  case 1: return 1.0 + 2.0 * t - t * t * t;
  case 2: return 2.0 + sin(t);
  case 3: return cos(t) * x;
  default: return 0.1 * x;
  }
}

static double w_by_mode(double x, void *ctx) { return by_mode(x, *(int *)ctx); }
static double w_segments(double x, void *ctx) { (void)ctx; return segments(x); }

int main(void) {
  static const int modes[] = {0, 1, 2, 3, 7, 5, -1};
  char name[64];
  for (int k = 0; k < 7; k++) {
    int m = modes[k];
    double x = 0.7 + 0.3 * k, dx = 1.0 - 0.4 * k;
    double t = __enzyme_fwddiff((void *)by_mode, enzyme_dup, x, dx, m);
    snprintf(name, sizeof name, "by_mode_%d", m);
    check_close(name, t, dx * fd_deriv(w_by_mode, x, &m), 1e-6, 1e-8);
  }
  static const double pts[] = {0.3, 1.6, 2.45, 3.7, 5.2, -0.5};
  for (int k = 0; k < 6; k++) {
    double t = __enzyme_fwddiff((void *)segments, enzyme_dup, pts[k], -0.8);
    snprintf(name, sizeof name, "segments_%d", k);
    check_close(name, t, -0.8 * fd_deriv(w_segments, pts[k], NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
