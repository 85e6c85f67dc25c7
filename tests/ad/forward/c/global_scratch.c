/* A global scratch array written with active data and read back: its shadow is
 * a zeroed internal global (one per direction in vector mode). */
#include "fwd_test.h"

typedef struct { double a, b; } Tan2;
double __enzyme_fwddiff(void *, ...);
Tan2 __enzyme_fwddiff2(void *, ...);

double scratch[16];

__attribute__((noinline)) double pairs(const double *x, int n) {
  for (int i = 0; i < n; i++) scratch[i] = x[i] * x[i] + 1.0;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += scratch[i] * log(scratch[(i + 3) % n]);
  return s;
}

enum { N = 11 };
static double w_pairs(const double *x, void *ctx) {
  (void)ctx;
  return pairs(x, N);
}

int main(void) {
  double x[N], v1[N], v2[N];
  rng_seed(59);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(v1, N, -1.0, 1.0);
  rng_fill(v2, N, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)pairs, enzyme_dup, x, v1, enzyme_const, N);
  check_close("global_jvp", t, fd_dir(w_pairs, x, v1, N, NULL), 1e-6, 1e-9);
  Tan2 t2 = __enzyme_fwddiff2((void *)pairs, enzyme_width, 2, enzyme_dup, x, v1, v2,
                              enzyme_const, N);
  check_close("global_lane0", t2.a, t, 1e-15, 0.0);
  check_close("global_lane1", t2.b, fd_dir(w_pairs, x, v2, N, NULL), 1e-6, 1e-9);
  return test_exit();
}
