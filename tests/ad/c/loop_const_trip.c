/* Loops with compile-time trip counts (fully unrolled at -O2), with libm
 * calls and a wrap-around index.
 *
 * Forward mode (-DFORWARD_MODE): loops with compile-time trip
 * counts (fully unrolled at -O2), libm calls and a wrap-around index. */
#include "kernel_test.h"

#define M 8

__attribute__((noinline)) double ring(const double *x) {
  double s = 0.0;
  for (int i = 0; i < M; i++) s += sin(x[i]) * x[(i + 1) % M];
  for (int i = 0; i < 4; i++) s += 0.5 * x[2 * i] * x[2 * i + 1];
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_ring(const double *x, void *ctx) { (void)ctx; return ring(x); }

int main(void) {
  double x[M], v[M], g[M];
  rng_seed(2);
  rng_fill(x, M, -2.0, 2.0);
  rng_fill(v, M, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)ring, enzyme_dup, x, v);
  check_close("ring_jvp", t, fd_dir(w_ring, x, v, M, NULL), 1e-6, 1e-8);
  zero_array(g, M);
  for (int i = 0; i < M; i++) {
    g[i] += cos(x[i]) * x[(i + 1) % M];
    g[(i + 1) % M] += sin(x[i]);
  }
  for (int i = 0; i < 4; i++) {
    g[2 * i] += 0.5 * x[2 * i + 1];
    g[2 * i + 1] += 0.5 * x[2 * i];
  }
  check_close("ring_grad_dot_v", t, dot_dir(g, v, M), 1e-12, 1e-13);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_ring(const double *x, double *dx) {
  for (int i = 0; i < M; i++) {
    dx[i] += cos(x[i]) * x[(i + 1) % M];
    dx[(i + 1) % M] += sin(x[i]);
  }
  for (int i = 0; i < 4; i++) {
    dx[2 * i] += 0.5 * x[2 * i + 1];
    dx[2 * i + 1] += 0.5 * x[2 * i];
  }
}
#endif

static void grad_ring(const double *x, double *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_ring(x, dx);
#else
  __enzyme_autodiff((void *)ring, enzyme_dup, x, dx);
#endif
}

static double w_ring(const double *x, void *ctx) { (void)ctx; return ring(x); }

int main(void) {
  double x[M], dx[M], fd[M];
  rng_seed(2);
  rng_fill(x, M, -2.0, 2.0);
  zero_array(dx, M);
  grad_ring(x, dx);
  fd_grad_array(w_ring, x, M, NULL, fd);
  check_array("ring_grad", dx, fd, M, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
