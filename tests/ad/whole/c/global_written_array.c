/* A mutable global array written with active data by a noinline callee and
 * read back: cache[i] = x[i]^2, then L = sum cache[i] sin(cache[i]).  Enzyme
 * needs a shadow for the global; this may not be supported yet. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

enum { N = 9 };
static double cache[N];

__attribute__((noinline)) void fill(const double *x, int n) {
  for (int i = 0; i < n; i++) cache[i] = x[i] * x[i];
}
__attribute__((noinline)) double loss(const double *x, int n) {
  fill(x, n);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += cache[i] * sin(cache[i]);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double c = x[i] * x[i];
    dx[i] += (sin(c) + c * cos(c)) * 2.0 * x[i];
    cache[i] = c;
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(124);
  rng_fill(x, N, -1.2, 1.2);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("global_array_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
