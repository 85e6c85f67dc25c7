/* Product reduction over a runtime-length array. */
#include "kernel_test.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double prod(const double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) p *= x[i];
  return p;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_prod(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double p = 1.0;
    for (int j = 0; j < n; j++)
      if (j != i) p *= x[j];
    dx[i] += p;
  }
}
#endif

static void grad_prod(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_prod(x, dx, n);
#else
  __enzyme_autodiff((void *)prod, enzyme_dup, x, dx, n);
#endif
}

enum { N = 12 };
static double w_prod(const double *x, void *ctx) { return prod(x, *(int *)ctx); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(4);
  rng_fill(x, N, 0.6, 1.6);
  x[5] = -x[5];
  int lens[2] = {N, 5};
  char name[64];
  for (int k = 0; k < 2; k++) {
    int n = lens[k];
    zero_array(dx, N);
    grad_prod(x, dx, n);
    fd_grad_array(w_prod, x, N, &n, fd);
    snprintf(name, sizeof name, "prod_grad_n%d", n);
    check_array(name, dx, fd, N, 1e-6, 1e-9);
  }
  return test_exit();
}
