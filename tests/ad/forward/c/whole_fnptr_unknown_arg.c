/* Forward mode of tests/ad/whole/c/fnptr_unknown_arg.c: an indirect call whose
 * target is a constant function-pointer argument chosen at run time sits on
 * the active path. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef double (*unary)(double);

__attribute__((noinline)) double f_tanh(double v) { return tanh(v); }
__attribute__((noinline)) double f_atan(double v) { return atan(v); }

__attribute__((noinline)) double loss(unary fn, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += fn(x[i]) * x[i];
  return s;
}

enum { N = 6 };
static unary chosen;
static double w_x(const double *x, void *c) { (void)c; return loss(chosen, x, N); }

int main(int argc, char **argv) {
  (void)argv;
  double x[N], v[N];
  chosen = argc > 5 ? f_atan : f_tanh;
  rng_seed(127);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(v, N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)loss, enzyme_const, chosen, enzyme_dup, x, v,
                              enzyme_const, N);
  check_close("unknown_arg_jvp", t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  return test_exit();
}
