/* Vector forward mode: enzyme_width 4 propagates four directions of a scalar
 * function in one call (each dup scalar is followed by its 4 tangents); the
 * four tangents come back as a struct of 4 doubles (Enzyme's [4 x double]). */
#include "fwd_test.h"

typedef struct { double d[4]; } Tan4;
Tan4 __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff1(void *, ...);

__attribute__((noinline)) double h(double x, double y, double z) {
  return sin(x * y) + exp(z) * y / (1.0 + x * x) + sqrt(1.0 + z * z);
}

static double w_h(const double *v, void *ctx) {
  (void)ctx;
  return h(v[0], v[1], v[2]);
}

int main(void) {
  double p[3] = {0.7, -0.4, 0.25};
  double V[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, -1.5, 2.0}};
  Tan4 t = __enzyme_fwddiff((void *)h, enzyme_width, 4,
                            enzyme_dup, p[0], V[0][0], V[1][0], V[2][0], V[3][0],
                            enzyme_dup, p[1], V[0][1], V[1][1], V[2][1], V[3][1],
                            enzyme_dup, p[2], V[0][2], V[1][2], V[2][2], V[3][2]);
  char name[32];
  for (int k = 0; k < 4; k++) {
    snprintf(name, sizeof name, "lane_%d", k);
    check_close(name, t.d[k], fd_dir(w_h, p, V[k], 3, NULL), 1e-6, 1e-9);
    double one = __enzyme_fwddiff1((void *)h, enzyme_dup, p[0], V[k][0], enzyme_dup, p[1],
                                   V[k][1], enzyme_dup, p[2], V[k][2]);
    snprintf(name, sizeof name, "lane_%d_eq_width1", k);
    check_close(name, t.d[k], one, 1e-15, 0.0);
  }
  /* linearity across lanes: lane 3 = 0.5 lane 0 - 1.5 lane 1 + 2 lane 2 */
  check_close("linear", t.d[3], 0.5 * t.d[0] - 1.5 * t.d[1] + 2.0 * t.d[2], 1e-13, 1e-15);
  return test_exit();
}
