/* Three enzyme_out scalars: the gradient struct is 24 bytes, so it comes back
 * through an sret pointer on x86-64.  An int argument sits in between.
 *
 * Forward mode (-DFORWARD_MODE): three dup scalars with a const
 * int argument in between; one random direction per point plus the three
 * axes at the first point. */
#include "kernel_test.h"

__attribute__((noinline)) double field(double x, int k, double y, double z) {
  double r = sqrt(x * x + y * y + z * z);
  return exp(-0.5 * r) * cos(k * x) + x * y * z / (1.0 + r);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
typedef struct { double dx, dy, dz; } grad3;
grad3 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad3 ref_grad_field(double x, int k, double y, double z) {
  double r = sqrt(x * x + y * y + z * z);
  double e = exp(-0.5 * r), c = cos(k * x), s = sin(k * x);
  double q = x * y * z, den = 1.0 + r;
  double dfdr = -0.5 * e * c - q / (den * den);
  grad3 g;
  g.dx = dfdr * x / r - e * k * s + y * z / den;
  g.dy = dfdr * y / r + x * z / den;
  g.dz = dfdr * z / r + x * y / den;
  return g;
}
#endif

static grad3 grad_field(double x, int k, double y, double z) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_field(x, k, y, z);
#else
  return __enzyme_autodiff((void *)field, enzyme_out, x, enzyme_const, k, enzyme_out, y,
                           enzyme_out, z);
#endif
}

static double pt[3];
static int kk;
static double w_field(const double *p, void *c) { (void)c; return field(p[0], kk, p[1], p[2]); }

int main(void) {
  static const double pts[][3] = {{0.3, -1.2, 0.8}, {1.5, 0.4, -0.6}, {-0.7, 2.0, 1.1}};
  char name[64];
  for (int t = 0; t < 3; t++) {
    memcpy(pt, pts[t], sizeof pt);
    kk = t + 1;
    grad3 g = grad_field(pt[0], kk, pt[1], pt[2]);
    double got[3] = {g.dx, g.dy, g.dz}, fd[3];
    fd_grad_array(w_field, pt, 3, NULL, fd);
    snprintf(name, sizeof name, "field_grad_%d", t);
    check_array(name, got, fd, 3, 1e-6, 1e-9);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
