/* Calls through a static const function-pointer table indexed by constants:
 * the targets are known (after -O2 they are direct calls; at -O0 they are
 * loads from a constant global). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef double (*unary)(double);

static double f_sq(double v) { return v * v; }
static double f_sin(double v) { return sin(v); }
static double f_softplus(double v) { return log(1.0 + exp(v)); }
static const unary table[3] = {f_sq, f_sin, f_softplus};

enum { SQ = 0, SIN = 1, SOFTPLUS = 2 };

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += table[SIN](x[i]) * table[SOFTPLUS](0.5 * x[i]) + table[SQ](x[i]);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double sp = log(1.0 + exp(0.5 * x[i])), sig = 1.0 / (1.0 + exp(-0.5 * x[i]));
    dx[i] += cos(x[i]) * sp + sin(x[i]) * 0.5 * sig + 2.0 * x[i];
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

enum { N = 10 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(126);
  rng_fill(x, N, -2.0, 2.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("fnptr_table_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
