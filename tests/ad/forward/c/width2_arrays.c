/* Vector forward mode with memory: enzyme_width 2, each dup pointer followed
 * by two shadows; the output array's two shadows receive the two tangents,
 * and the returned norm's two tangents come back as {double, double}. */
#include "fwd_test.h"

typedef struct { double a, b; } Tan2;
Tan2 __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double smooth(const double *x, double *y, double c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double l = x[i > 0 ? i - 1 : 0], r = x[i < n - 1 ? i + 1 : n - 1];
    y[i] = c * x[i] + 0.25 * (l + r) + x[i] * x[i] * x[i];
    s += y[i] * y[i];
  }
  return sqrt(s);
}

enum { N = 17, P = N + 1 };
static double w_norm(const double *v, void *ctx) {
  (void)ctx;
  double y[N];
  return smooth(v, y, v[N], N);
}
static void w_y(const double *v, double *out, void *ctx) {
  (void)ctx;
  smooth(v, out, v[N], N);
}

int main(void) {
  double p[P], v1[P], v2[P], y[N], dy1[N], dy2[N], w1[N], w2[N];
  rng_seed(23);
  rng_fill(p, P, -1.0, 1.0);
  rng_fill(v1, P, -1.0, 1.0);
  rng_fill(v2, P, -1.0, 1.0);
  Tan2 t = __enzyme_fwddiff((void *)smooth, enzyme_width, 2, enzyme_dup, p, v1, v2,
                            enzyme_dup, y, dy1, dy2, enzyme_dup, p[N], v1[N], v2[N],
                            enzyme_const, N);
  check_close("norm_lane0", t.a, fd_dir(w_norm, p, v1, P, NULL), 1e-6, 1e-9);
  check_close("norm_lane1", t.b, fd_dir(w_norm, p, v2, P, NULL), 1e-6, 1e-9);
  fd_dir_vec(w_y, p, v1, P, w1, N, NULL);
  fd_dir_vec(w_y, p, v2, P, w2, N, NULL);
  check_array("dy_lane0", dy1, w1, N, 1e-7, 1e-9);
  check_array("dy_lane1", dy2, w2, N, 1e-7, 1e-9);
  return test_exit();
}
