/* Constant global lookup tables read on an active path: a static const
 * coefficient table indexed by i % 8 and an extern const table indexed by a
 * data-dependent integer.  The tables are inactive (no shadow needed). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

static const double coef[8] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5, -2.25, 1.0};
const double knots[5] = {0.1, 0.4, 0.9, 1.6, 2.5};

__attribute__((noinline)) double loss(const double *x, const int *bucket, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double k = knots[bucket[i]];
    s += coef[i % 8] * x[i] * x[i] + sin(k * x[i]);
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const int *bucket, int n) {
  for (int i = 0; i < n; i++) {
    double k = knots[bucket[i]];
    dx[i] += 2.0 * coef[i % 8] * x[i] + k * cos(k * x[i]);
  }
}
#endif

static void grad_loss(const double *x, double *dx, const int *bucket, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, bucket, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, bucket, enzyme_const, n);
#endif
}

enum { N = 13 };
static int buckets[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, buckets, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(123);
  rng_fill(x, N, -1.5, 1.5);
  for (int i = 0; i < N; i++) buckets[i] = (int)(rng_next() % 5);
  zero_array(dx, N);
  grad_loss(x, dx, buckets, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("const_table_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
