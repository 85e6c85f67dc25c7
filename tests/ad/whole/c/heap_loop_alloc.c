/* A heap array allocated inside a loop and freed in the same iteration:
 * each outer step k fills buf[i] = sin(x[i] + k t) * x[(i+1) % n], reduces it
 * and frees it.  t is an active scalar.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, double t, int n, int steps) {
  double acc = 0.0;
  for (int k = 0; k < steps; k++) {
    double *buf = (double *)malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) buf[i] = sin(x[i] + k * t) * x[(i + 1) % n];
    double s = 0.0;
    for (int i = 0; i < n; i++) s += buf[i] * buf[i];
    acc += sqrt(s + 1.0);
    free(buf);
  }
  return acc;
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *x, double *dx, double t, int n, int steps) {
  double dt = 0.0;
  for (int k = 0; k < steps; k++) {
    double b[64], s = 0.0;
    for (int i = 0; i < n; i++) { b[i] = sin(x[i] + k * t) * x[(i + 1) % n]; s += b[i] * b[i]; }
    double ds = 0.5 / sqrt(s + 1.0);
    for (int i = 0; i < n; i++) {
      double db = ds * 2.0 * b[i];
      double c = cos(x[i] + k * t) * x[(i + 1) % n];
      dx[i] += db * c;
      dx[(i + 1) % n] += db * sin(x[i] + k * t);
      dt += db * c * k;
    }
  }
  return dt;
}
#endif

static double grad_loss(const double *x, double *dx, double t, int n, int steps) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, t, n, steps); /* the primal allocates and frees, as the real gradient does */
  return ref_grad_loss(x, dx, t, n, steps);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_out, t, enzyme_const, n,
                           enzyme_const, steps);
#endif
}

enum { N = 7, STEPS = 5 };
static double xs[N], ts = 0.37;
static double w_x(const double *x, void *c) { (void)c; return loss(x, ts, N, STEPS); }
static double w_t(double t, void *c) { (void)c; return loss(xs, t, N, STEPS); }

int main(void) {
  double dx[N], fd[N];
  rng_seed(113);
  rng_fill(xs, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  double dt = grad_loss(xs, dx, ts, N, STEPS);
  size_t heap1 = mallinfo2().uordblks;
  check_close("loop_alloc_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, xs, N, NULL, fd);
  check_array("loop_alloc_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("loop_alloc_dt", dt, fd_deriv(w_t, ts, NULL), 1e-6, 1e-9);
  return test_exit();
}
