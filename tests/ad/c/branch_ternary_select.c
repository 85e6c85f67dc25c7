/* Ternaries inside a loop (become selects, vectorized at -O2); an
 * enzyme_const double threshold and a runtime trip count. */
#include "enzyme_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double relu_mix(const double *x, double c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i] > c ? x[i] * x[i] : 3.0 * x[i];
    double u = x[i] < 0.0 ? 0.0 : x[i];
    s += v + 0.25 * u;
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_relu_mix(const double *x, double *dx, double c, int n) {
  for (int i = 0; i < n; i++) {
    dx[i] += (x[i] > c ? 2.0 * x[i] : 3.0) + (x[i] < 0.0 ? 0.0 : 0.25);
  }
}
#endif

static void grad_relu_mix(const double *x, double *dx, double c, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_relu_mix(x, dx, c, n);
#else
  __enzyme_autodiff((void *)relu_mix, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, n);
#endif
}

struct ctx { double c; int n; };
static double w_relu_mix(const double *x, void *p) {
  struct ctx *k = p;
  return relu_mix(x, k->c, k->n);
}

int main(void) {
  enum { N = 29 };
  double x[N], dx[N], fd[N];
  rng_seed(5);
  for (int i = 0; i < N; i++) {
    /* keep every input at least 0.05 away from the kinks at 0 and c */
    double v = rng_uniform(0.05, 0.45);
    x[i] = (i % 3 == 0) ? -v : (i % 3 == 1) ? v : 0.5 + v;
  }
  struct ctx k = {0.5, N};
  zero_array(dx, N);
  grad_relu_mix(x, dx, k.c, N);
  fd_grad_array(w_relu_mix, x, N, &k, fd);
  check_array("relu_mix_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
