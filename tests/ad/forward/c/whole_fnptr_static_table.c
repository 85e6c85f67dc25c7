/* Forward mode of tests/ad/whole/c/fnptr_static_table.c: calls through a static const
 * function-pointer table indexed by constants (known targets). */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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

enum { N = 10 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(126);
  rng_fill(x, N, -2.0, 2.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "fnptr_table_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
