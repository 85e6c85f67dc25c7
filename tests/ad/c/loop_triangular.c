/* Triangular nested loop (j < i) with an enzyme_const coefficient array.
 *
 * Forward mode (-DFORWARD_MODE): a triangular nested loop
 * (j < i) with an enzyme_const coefficient array. */
#include "kernel_test.h"

__attribute__((noinline)) double tri_pairs(const double *x, const double *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double inner = 0.0;
    for (int j = 0; j < i; j++) inner += c[i - j] * x[j];
    s += x[i] * inner + 0.1 * x[i] * x[i] * x[i];
  }
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 17 };
static double w_tri(const double *x, void *ctx) { return tri_pairs(x, (const double *)ctx, N); }

int main(void) {
  double x[N], c[N], v[N];
  char name[32];
  rng_seed(8);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(c, N, -0.5, 0.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)tri_pairs, enzyme_dup, x, v, enzyme_const, c,
                                enzyme_const, N);
    snprintf(name, sizeof name, "tri_pairs_jvp_%d", d);
    check_close(name, t, fd_dir(w_tri, x, v, N, c), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_tri_pairs(const double *x, double *dx, const double *c, int n) {
  for (int k = 0; k < n; k++) {
    double g = 0.3 * x[k] * x[k];
    for (int j = 0; j < k; j++) g += c[k - j] * x[j];
    for (int i = k + 1; i < n; i++) g += c[i - k] * x[i];
    dx[k] += g;
  }
}
#endif

static void grad_tri_pairs(const double *x, double *dx, const double *c, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_tri_pairs(x, dx, c, n);
#else
  __enzyme_autodiff((void *)tri_pairs, enzyme_dup, x, dx, enzyme_const, c, n);
#endif
}

enum { N = 17 };
static double w_tri(const double *x, void *ctx) { return tri_pairs(x, (const double *)ctx, N); }

int main(void) {
  double x[N], c[N], dx[N], fd[N];
  rng_seed(8);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(c, N, -0.5, 0.5);
  zero_array(dx, N);
  grad_tri_pairs(x, dx, c, N);
  fd_grad_array(w_tri, x, N, c, fd);
  check_array("tri_pairs_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
