/* Arguments without activity annotations: an int is constant and a double is
 * active (enzyme_out) by default; a pointer is dup by default (shadow follows). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double damped(double t, const double *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += c[i] * exp(-t * (i + 1)) * cos(t + i);
  return s;
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_damped(double t, const double *c, double *dc, int n) {
  double dt = 0.0;
  for (int i = 0; i < n; i++) {
    double e = exp(-t * (i + 1)), co = cos(t + i);
    dt += c[i] * (-(i + 1) * e * co - e * sin(t + i));
    dc[i] += e * co;
  }
  return dt;
}
#endif

static double grad_damped(double t, const double *c, double *dc, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_damped(t, c, dc, n);
#else
  return __enzyme_autodiff((void *)damped, t, c, dc, n);
#endif
}

enum { N = 9 };
static double cb[N], tb = 0.35;
static double w_t(double t, void *x) { (void)x; return damped(t, cb, N); }
static double w_c(const double *c, void *x) { (void)x; return damped(tb, c, N); }

int main(void) {
  double dc[N], fd[N];
  rng_seed(27);
  rng_fill(cb, N, -1.0, 1.0);
  zero_array(dc, N);
  double dt = grad_damped(tb, cb, dc, N);
  check_close("damped_dt", dt, fd_deriv(w_t, tb, NULL), 1e-6, 1e-9);
  fd_grad_array(w_c, cb, N, NULL, fd);
  check_array("damped_dc", dc, fd, N, 1e-6, 1e-9);
  return test_exit();
}
