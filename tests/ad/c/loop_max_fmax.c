/* Max / min reductions through fmax and fmin (llvm.maxnum / llvm.minnum at
 * -O2): the gradient flows only to the arg-max / arg-min entry.
 *
 * Forward mode (-DFORWARD_MODE): max / min reductions through
 * fmax and fmin (llvm.maxnum / llvm.minnum at -O2); the tangent follows only
 * the arg-max / arg-min entry. */
#include "kernel_test.h"

__attribute__((noinline)) double range_mix(const double *x, int n) {
  double hi = -INFINITY, lo = INFINITY;
  for (int i = 0; i < n; i++) {
    hi = fmax(hi, x[i] * x[i]);
    lo = fmin(lo, x[i]);
  }
  return hi - 2.0 * lo;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 21 };
static double w_range_mix(const double *x, void *ctx) { (void)ctx; return range_mix(x, N); }

int main(void) {
  double x[N], v[N];
  rng_seed(6);
  rng_fill(x, N, -1.0, 1.0);
  x[13] = 1.7;  /* clear maximum of x^2 */
  x[4] = -1.4;  /* clear minimum */
  rng_fill(v, N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)range_mix, enzyme_dup, x, v, enzyme_const, N);
  check_close("range_mix_jvp", t, fd_dir(w_range_mix, x, v, N, NULL), 1e-6, 1e-8);
  check_close("range_mix_exact", t, 2.0 * x[13] * v[13] - 2.0 * v[4], 1e-14, 1e-15);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_range_mix(const double *x, double *dx, int n) {
  int ih = 0, il = 0;
  for (int i = 1; i < n; i++) {
    if (x[i] * x[i] > x[ih] * x[ih]) ih = i;
    if (x[i] < x[il]) il = i;
  }
  dx[ih] += 2.0 * x[ih];
  dx[il] += -2.0;
}
#endif

static void grad_range_mix(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_range_mix(x, dx, n);
#else
  __enzyme_autodiff((void *)range_mix, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 21 };
static double w_range_mix(const double *x, void *ctx) { (void)ctx; return range_mix(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(6);
  rng_fill(x, N, -1.0, 1.0);
  x[13] = 1.7;  /* clear maximum of x^2 */
  x[4] = -1.4;  /* clear minimum */
  zero_array(dx, N);
  grad_range_mix(x, dx, N);
  fd_grad_array(w_range_mix, x, N, NULL, fd);
  check_array("range_mix_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
