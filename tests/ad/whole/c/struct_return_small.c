/* Struct returns from noinline callees: a complex number struct {re, im}
 * (returned in registers) multiplied along an array;
 * L = |z|^2 + Re z, z = prod_i (cos x_i + 0.5 i sin x_i). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double re, im;
} cplx;

__attribute__((noinline)) cplx cmul(cplx a, cplx b) {
  cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}
__attribute__((noinline)) cplx unit(double t) {
  cplx r = {cos(t), 0.5 * sin(t)};
  return r;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  cplx z = {1.0, 0.0};
  for (int i = 0; i < n; i++) z = cmul(z, unit(x[i]));
  return z.re * z.re + z.im * z.im + z.re;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  /* forward mode per input: dz = z / z_j * dz_j */
  for (int j = 0; j < n; j++) {
    double zr = 1.0, zi = 0.0, dr = 0.0, di = 0.0;
    for (int i = 0; i < n; i++) {
      double ar = cos(x[i]), ai = 0.5 * sin(x[i]);
      double br = (i == j) ? -sin(x[i]) : 0.0, bi = (i == j) ? 0.5 * cos(x[i]) : 0.0;
      double ndr = dr * ar - di * ai + zr * br - zi * bi;
      double ndi = dr * ai + di * ar + zr * bi + zi * br;
      double nzr = zr * ar - zi * ai, nzi = zr * ai + zi * ar;
      zr = nzr; zi = nzi; dr = ndr; di = ndi;
    }
    dx[j] += 2.0 * zr * dr + 2.0 * zi * di + dr;
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 7 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(120);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("struct_return_small_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
