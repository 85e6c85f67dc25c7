/* An indirect call through a mutable global function pointer (set at run
 * time) on the active path.  The transform must fail with a clear error (exit
 * 1, a message, no crash); -DREFERENCE_GRADIENT checks the program itself. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef double (*unary)(double);

__attribute__((noinline)) double f_cube(double v) { return v * v * v; }
__attribute__((noinline)) double f_expm(double v) { return exp(-v); }

unary g_hook;

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(g_hook(x[i]));
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double d = g_hook == f_cube ? 3.0 * x[i] * x[i] : -exp(-x[i]);
    dx[i] += cos(g_hook(x[i])) * d;
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

enum { N = 6 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(int argc, char **argv) {
  (void)argv;
  double x[N], dx[N], fd[N];
  g_hook = argc > 5 ? f_expm : f_cube;
  rng_seed(128);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("unknown_global_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
