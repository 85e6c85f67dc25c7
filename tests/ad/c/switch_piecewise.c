/* switch statements: on an integer argument (unannotated -> const) and on a
 * segment index computed from the active input.
 *
 * Forward mode (-DFORWARD_MODE): switch statements on an
 * integer argument (unannotated, so const) and on a segment index computed
 * from the active input. */
#include "kernel_test.h"

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

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_by_mode(double x, int mode) {
  switch (mode) {
  case 0: return 2.0 * x;
  case 1: return cos(x) * x + sin(x);
  case 2: return 0.5 * exp(0.5 * x);
  case 3: return 3.0 * x * x - 1.0;
  case 7: return -2.0 * x / ((1.0 + x * x) * (1.0 + x * x));
  default: return 2.0;
  }
}
static double ref_grad_segments(double x) {
  int k = (int)floor(x);
  double t = x - k;
  switch (k) {
  case 0: return 2.0 * t;
  case 1: return 2.0 - 3.0 * t * t;
  case 2: return cos(t);
  case 3: return -sin(t) * x + cos(t);
  default: return 0.1;
  }
}
#endif

static double grad_by_mode(double x, int mode) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_by_mode(x, mode);
#else
  return __enzyme_autodiff((void *)by_mode, enzyme_out, x, mode);
#endif
}

static double grad_segments(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_segments(x);
#else
  return __enzyme_autodiff((void *)segments, enzyme_out, x);
#endif
}

static double w_by_mode(double x, void *ctx) { return by_mode(x, *(int *)ctx); }
static double w_segments(double x, void *ctx) { (void)ctx; return segments(x); }

int main(void) {
  static const int modes[] = {0, 1, 2, 3, 7, 5, -1};
  char name[64];
  for (int k = 0; k < 7; k++) {
    int m = modes[k];
    double x = 0.7 + 0.3 * k;
    snprintf(name, sizeof name, "by_mode_%d", m);
    check_close(name, grad_by_mode(x, m), fd_deriv(w_by_mode, x, &m), 1e-6, 1e-8);
  }
  static const double pts[] = {0.3, 1.6, 2.45, 3.7, 5.2, -0.5};
  for (int k = 0; k < 6; k++) {
    snprintf(name, sizeof name, "segments_%d", k);
    check_close(name, grad_segments(pts[k]), fd_deriv(w_segments, pts[k], NULL), 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
