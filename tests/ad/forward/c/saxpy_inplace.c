/* In-place update y = a*x + y: the shadow of y holds dy on entry and the
 * tangent of the new y on exit; a is a dup scalar. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void saxpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

enum { N = 29 };
static void w_saxpy(const double *v, double *out, void *ctx) {
  (void)ctx;
  for (int i = 0; i < N; i++) out[i] = v[1 + N + i];
  saxpy(v[0], v + 1, out, N);
}

int main(void) {
  double p[1 + 2 * N], v[1 + 2 * N], want[N];
  rng_seed(5);
  rng_fill(p, 1 + 2 * N, -1.0, 1.0);
  rng_fill(v, 1 + 2 * N, -1.0, 1.0);
  double x[N], dx[N], y[N], dy[N], y0[N];
  memcpy(x, p + 1, sizeof x);
  memcpy(dx, v + 1, sizeof dx);
  memcpy(y, p + 1 + N, sizeof y);
  memcpy(dy, v + 1 + N, sizeof dy);
  memcpy(y0, y, sizeof y);
  __enzyme_fwddiff((void *)saxpy, enzyme_dup, p[0], v[0], enzyme_dup, x, dx, enzyme_dup, y, dy,
                   enzyme_const, N);
  fd_dir_vec(w_saxpy, p, v, 1 + 2 * N, want, N, NULL);
  check_array("saxpy_dy", dy, want, N, 1e-7, 1e-9);
  double prim[N];
  for (int i = 0; i < N; i++) prim[i] = p[0] * x[i] + y0[i];
  check_array("saxpy_primal", y, prim, N, 1e-15, 0.0);
  check_array("saxpy_dx_unchanged", dx, v + 1, N, 0.0, 0.0);
  return test_exit();
}
