/* Smooth max / min built from fmax / fmin plus a log1p(exp(-|a-b|))
 * correction: the kinks of fmax, fmin and fabs cancel.
 *
 * Forward mode (-DFORWARD_MODE): smooth max / min from fmax / fmin
 * plus a log1p(exp(-|a-b|)) correction (the kinks cancel). */
#include "kernel_test.h"

__attribute__((noinline)) double smooth_pairs(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n - 1; i++) {
    double a = x[i], b = x[i + 1], c = 2.0 * x[i + 1];
    double smax = fmax(a, b) + log1p(exp(-fabs(a - b)));
    double smin = fmin(a, c) - log1p(exp(-fabs(a - c)));
    s += smax + 0.5 * smin;
  }
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 14 };
static double w_smooth(const double *x, void *p) { (void)p; return smooth_pairs(x, N); }

int main(void) {
  double x[N], v[N];
  char name[32];
  rng_seed(33);
  rng_fill(x, N, -2.0, 2.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)smooth_pairs, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "smooth_pairs_jvp_%d", d);
    check_close(name, t, fd_dir(w_smooth, x, v, N, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double sigmoid(double t) { return 1.0 / (1.0 + exp(-t)); }
static void ref_grad_smooth_pairs(const double *x, double *dx, int n) {
  for (int i = 0; i < n - 1; i++) {
    double a = x[i], b = x[i + 1], c = 2.0 * x[i + 1];
    dx[i] += sigmoid(a - b) + 0.5 * sigmoid(c - a);
    dx[i + 1] += sigmoid(b - a) + 0.5 * 2.0 * sigmoid(a - c);
  }
}
#endif

static void grad_smooth_pairs(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_smooth_pairs(x, dx, n);
#else
  __enzyme_autodiff((void *)smooth_pairs, enzyme_dup, x, dx, n);
#endif
}

enum { N = 14 };
static double w_smooth(const double *x, void *p) { (void)p; return smooth_pairs(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(33);
  rng_fill(x, N, -2.0, 2.0);
  zero_array(dx, N);
  grad_smooth_pairs(x, dx, N);
  fd_grad_array(w_smooth, x, N, NULL, fd);
  check_array("smooth_pairs_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
