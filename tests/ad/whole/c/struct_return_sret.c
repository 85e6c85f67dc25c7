/* A noinline callee returns a 32-byte struct (sret on x86-64): the first four
 * power sums of an array; the loss combines them. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double s1, s2, s3, s4;
} moments;

__attribute__((noinline)) moments power_sums(const double *x, int n) {
  moments m = {0.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < n; i++) {
    double v = x[i];
    m.s1 += v;
    m.s2 += v * v;
    m.s3 += v * v * v;
    m.s4 += v * v * v * v;
  }
  return m;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  moments m = power_sums(x, n);
  double mean = m.s1 / n;
  return m.s2 / n - mean * mean + 0.1 * m.s3 + 0.01 * m.s4 * m.s1;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double s1 = 0.0, s4 = 0.0;
  for (int i = 0; i < n; i++) { s1 += x[i]; s4 += x[i] * x[i] * x[i] * x[i]; }
  for (int i = 0; i < n; i++) {
    double v = x[i];
    dx[i] += 2.0 * v / n - 2.0 * s1 / ((double)n * n) + 0.3 * v * v +
             0.01 * (4.0 * v * v * v * s1 + s4);
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

enum { N = 9 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(121);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("struct_return_sret_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
