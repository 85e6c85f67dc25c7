/* Forward mode of tests/ad/c/struct_return3.c: three dup scalars with a const
 * int argument in between; one random direction per point plus the three
 * axes at the first point. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double field(double x, int k, double y, double z) {
  double r = sqrt(x * x + y * y + z * z);
  return exp(-0.5 * r) * cos(k * x) + x * y * z / (1.0 + r);
}

static int kk;
static double w_field(const double *p, void *c) { (void)c; return field(p[0], kk, p[1], p[2]); }

int main(void) {
  static const double pts[][3] = {{0.3, -1.2, 0.8}, {1.5, 0.4, -0.6}, {-0.7, 2.0, 1.1}};
  static const double axes[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double v[3];
  char name[64];
  rng_seed(49);
  for (int t = 0; t < 3; t++) {
    kk = t + 1;
    rng_fill(v, 3, -1.0, 1.0);
    double d = __enzyme_fwddiff((void *)field, enzyme_dup, pts[t][0], v[0], enzyme_const, kk,
                                enzyme_dup, pts[t][1], v[1], enzyme_dup, pts[t][2], v[2]);
    snprintf(name, sizeof name, "field_jvp_%d", t);
    check_close(name, d, fd_dir(w_field, pts[t], v, 3, NULL), 1e-6, 1e-9);
  }
  kk = 1;
  for (int a = 0; a < 3; a++) {
    double d = __enzyme_fwddiff((void *)field, enzyme_dup, pts[0][0], axes[a][0], enzyme_const,
                                kk, enzyme_dup, pts[0][1], axes[a][1], enzyme_dup, pts[0][2],
                                axes[a][2]);
    snprintf(name, sizeof name, "field_axis_%d", a);
    check_close(name, d, fd_dir(w_field, pts[0], axes[a], 3, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
