/* Arguments without activity annotations: an int is constant and a double is
 * active (enzyme_out) by default; a pointer is dup by default (shadow follows).
 *
 * Forward mode (-DFORWARD_MODE): arguments without activity
 * annotations.  In forward mode an unmarked double is active (its tangent
 * follows it), an unmarked pointer is dup and an int is constant. */
#include "kernel_test.h"

__attribute__((noinline)) double damped(double t, const double *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += c[i] * exp(-t * (i + 1)) * cos(t + i);
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 9 };
static double w_damped(const double *p, void *x) { (void)x; return damped(p[0], p + 1, N); }

int main(void) {
  double p[N + 1], v[N + 1], g[N + 1];
  rng_seed(27);
  p[0] = 0.35;
  rng_fill(p + 1, N, -1.0, 1.0);
  rng_fill(v, N + 1, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)damped, p[0], v[0], p + 1, v + 1, N);
  check_close("damped_jvp", t, fd_dir(w_damped, p, v, N + 1, NULL), 1e-6, 1e-9);
  g[0] = 0.0;
  for (int i = 0; i < N; i++) {
    double e = exp(-p[0] * (i + 1)), co = cos(p[0] + i);
    g[0] += p[1 + i] * (-(i + 1) * e * co - e * sin(p[0] + i));
    g[1 + i] = e * co;
  }
  check_close("damped_grad_dot_v", t, dot_dir(g, v, N + 1), 1e-12, 1e-13);
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

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
#endif /* FORWARD_MODE */
