/* An indirect call whose target is unknown at compile time sits on the active
 * path: the function pointer is a constant argument chosen at run time.  The
 * transform must fail with a clear error (exit 1, a message, no crash);
 * under -DREFERENCE_GRADIENT the program checks itself. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef double (*unary)(double);

__attribute__((noinline)) double f_tanh(double v) { return tanh(v); }
__attribute__((noinline)) double f_atan(double v) { return atan(v); }

__attribute__((noinline)) double loss(unary fn, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += fn(x[i]) * x[i];
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(unary fn, const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double d = fn == f_tanh ? 1.0 - tanh(x[i]) * tanh(x[i]) : 1.0 / (1.0 + x[i] * x[i]);
    dx[i] += d * x[i] + fn(x[i]);
  }
}
#endif

static void grad_loss(unary fn, const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(fn, x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_const, fn, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 6 };
static unary chosen;
static double w_x(const double *x, void *c) { (void)c; return loss(chosen, x, N); }

int main(int argc, char **argv) {
  (void)argv;
  double x[N], dx[N], fd[N];
  chosen = argc > 5 ? f_atan : f_tanh;
  rng_seed(127);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  grad_loss(chosen, x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("unknown_arg_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
