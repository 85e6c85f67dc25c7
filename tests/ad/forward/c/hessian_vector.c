/* Forward over reverse: a Hessian-vector product is the jvp of a gradient
 * that __enzyme_autodiff computes (the inner call is lowered first; forward
 * mode then differentiates the generated gradient like any callee). */
#include "fwd_test.h"

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double energy(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[(i + 1) % n] + 0.5 * x[i] * x[i] * x[i];
  return s;
}

__attribute__((noinline)) void gradient(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)energy, enzyme_dup, x, g, enzyme_const, n);
}

enum { N = 6 };
static void w_grad(const double *x, double *g, void *ctx) {
  (void)ctx;
  gradient(x, g, N);
}

int main(void) {
  double x[N], v[N], g[N], hv[N], want[N];
  rng_seed(47);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  __enzyme_fwddiff((void *)gradient, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, N);
  fd_dir_vec(w_grad, x, v, N, want, N, NULL);
  check_array("hessian_vector", hv, want, N, 1e-6, 1e-8);
  double gw[N];
  gradient(x, gw, N);
  check_array("gradient_primal", g, gw, N, 1e-14, 0.0);
  return test_exit();
}
