/* memset on active memory: zeroing the head of a dup array (its gradient
 * must vanish) and clearing a local accumulator array.
 *
 * Forward mode (-DFORWARD_MODE): memset zeroes the head of a dup
 * array (its tangent must vanish too) and clears a local accumulator. */
#include "kernel_test.h"

__attribute__((noinline)) double zero_head(double *x, int n, int k) {
  double acc[8];
  memset(x, 0, k * sizeof(double));
  memset(acc, 0, sizeof acc);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * (i + 1) + cos(x[i]);
  for (int i = 0; i < n; i++) acc[i % 8] += x[i] * x[(i + 3) % n];
  for (int j = 0; j < 8; j++) s += acc[j] * acc[j];
  return s;
}

enum { N = 13, KZ = 4 };

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_zero_head(const double *x, void *ctx) {
  (void)ctx;
  double b[N];
  memcpy(b, x, sizeof b);
  return zero_head(b, N, KZ);
}

int main(void) {
  double x0[N], x[N], v[N], dx[N], zeros[KZ];
  rng_seed(22);
  rng_fill(x0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  memcpy(dx, v, sizeof dx);
  double t = __enzyme_fwddiff((void *)zero_head, enzyme_dup, x, dx, enzyme_const, N,
                              enzyme_const, KZ);
  check_close("zero_head_jvp", t, fd_dir(w_zero_head, x0, v, N, NULL), 1e-6, 1e-8);
  zero_array(zeros, KZ);
  check_array("zero_head_dx_zeroed", dx, zeros, KZ, 0.0, 0.0);
  check_array("zero_head_dx_tail_kept", dx + KZ, v + KZ, N - KZ, 0.0, 0.0);
  check_close("zero_head_primal_effect", x[KZ - 1], 0.0, 0.0, 0.0);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_zero_head(double *x, double *dx, int n, int k) {
  double acc[8] = {0};
  for (int i = 0; i < k; i++) { x[i] = 0.0; dx[i] = 0.0; }
  for (int i = 0; i < n; i++) acc[i % 8] += x[i] * x[(i + 3) % n];
  double g[N];
  for (int i = 0; i < n; i++) g[i] = 2.0 * x[i] * (i + 1) - sin(x[i]);
  for (int i = 0; i < n; i++) {
    double a = 2.0 * acc[i % 8];
    g[i] += a * x[(i + 3) % n];
    g[(i + 3) % n] += a * x[i];
  }
  for (int i = k; i < n; i++) dx[i] += g[i];
}
#endif

static void grad_zero_head(double *x, double *dx, int n, int k) {
#ifdef REFERENCE_GRADIENT
  ref_grad_zero_head(x, dx, n, k);
#else
  __enzyme_autodiff((void *)zero_head, enzyme_dup, x, dx, n, k);
#endif
}

static double w_zero_head(const double *x, void *ctx) {
  (void)ctx;
  double b[N];
  memcpy(b, x, sizeof b);
  return zero_head(b, N, KZ);
}

int main(void) {
  double x0[N], x[N], dx[N], fd[N];
  rng_seed(22);
  rng_fill(x0, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  zero_array(dx, N);
  grad_zero_head(x, dx, N, KZ);
  fd_grad_array(w_zero_head, x0, N, NULL, fd);
  check_array("zero_head_grad", dx, fd, N, 1e-6, 1e-8);
  check_close("zero_head_primal_effect", x[KZ - 1], 0.0, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
