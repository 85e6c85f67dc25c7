/* Forward mode of tests/ad/whole/c/inactivefn_print.c: a logging function declared
 * inactive with __enzyme_inactivefn is called on the active path (still
 * once per element). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

enum { N = 5 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(130);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    int before = print_calls;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    int calls = print_calls - before;
    snprintf(name, sizeof name, "inactive_print_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
    snprintf(name, sizeof name, "inactive_print_calls_%d", d);
    check_close(name, calls, N, 0.0, 0.0);
  }
  return test_exit();
}
