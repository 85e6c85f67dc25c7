/* A logging function called on the active path, declared inactive the way
 * Enzyme documents it: void *__enzyme_inactivefn[] = {(void *)myprint};
 * myprint formats its (active) argument to stderr; its calls carry no
 * derivative and must still happen once per iteration. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

int print_calls = 0;

__attribute__((noinline)) void myprint(const char *what, double v) {
  print_calls++;
  fprintf(stderr, "# %s = %.6f\n", what, v);
}

void *__enzyme_inactivefn[] = {(void *)myprint};

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += exp(0.5 * x[i]) * x[i];
    myprint("partial", s);
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  (void)loss(x, n); /* the forward sweep prints, as the real gradient does */
  for (int i = 0; i < n; i++) dx[i] += exp(0.5 * x[i]) * (1.0 + 0.5 * x[i]);
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 5 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(130);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  int before = print_calls;
  grad_loss(x, dx, N);
  check_close("inactive_print_calls", print_calls - before, N, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("inactive_print_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
