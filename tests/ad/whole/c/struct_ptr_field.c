/* Structs with pointer fields, struct { double *data; int n; }, passed by
 * pointer.  The shadow struct points at the shadow array (Enzyme style).  The
 * callee vaxpy updates y->data in place: y <- y + a x. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double *data;
  int n;
} vec;

__attribute__((noinline)) void vaxpy(vec *y, double a, const vec *x) {
  for (int i = 0; i < y->n; i++) y->data[i] += a * x->data[i];
}
__attribute__((noinline)) double vloss(const vec *y, const vec *x) {
  double s = 0.0;
  for (int i = 0; i < y->n; i++) s += y->data[i] * y->data[i] + sin(x->data[i]) * y->data[i];
  return s;
}
__attribute__((noinline)) double loss(const vec *x, vec *y, double a) {
  vaxpy(y, a, x);
  return vloss(y, x);
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const vec *x, vec *dxs, vec *y, vec *dys, double a) {
  double da = 0.0;
  for (int i = 0; i < y->n; i++) {
    double yy = y->data[i] + a * x->data[i];
    double g = 2.0 * yy + sin(x->data[i]) + dys->data[i]; /* dys seeds the final y */
    dxs->data[i] += g * a + cos(x->data[i]) * yy;
    dys->data[i] = g;
    da += g * x->data[i];
    y->data[i] = yy;
  }
  return da;
}
#endif

static double grad_loss(const vec *x, vec *dx, vec *y, vec *dy, double a) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(x, dx, y, dy, a);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_out, a);
#endif
}

enum { N = 8 };
static double xin[N], yin[N], a0 = 0.7;
static double w_x(const double *xd, void *c) {
  (void)c;
  double xx[N], yy[N];
  memcpy(xx, xd, sizeof xx);
  memcpy(yy, yin, sizeof yy);
  vec x = {xx, N}, y = {yy, N};
  return loss(&x, &y, a0);
}
static double w_y(const double *yd, void *c) {
  (void)c;
  double xx[N], yy[N];
  memcpy(xx, xin, sizeof xx);
  memcpy(yy, yd, sizeof yy);
  vec x = {xx, N}, y = {yy, N};
  return loss(&x, &y, a0);
}
static double w_a(double a, void *c) {
  (void)c;
  double xx[N], yy[N];
  memcpy(xx, xin, sizeof xx);
  memcpy(yy, yin, sizeof yy);
  vec x = {xx, N}, y = {yy, N};
  return loss(&x, &y, a);
}

int main(void) {
  double xd[N], yd[N], dxd[N], dyd[N], fd[N];
  rng_seed(118);
  rng_fill(xin, N, -1.0, 1.0);
  rng_fill(yin, N, -1.0, 1.0);
  memcpy(xd, xin, sizeof xd);
  memcpy(yd, yin, sizeof yd);
  zero_array(dxd, N);
  zero_array(dyd, N);
  vec x = {xd, N}, y = {yd, N}, dx = {dxd, N}, dy = {dyd, N};
  double da = grad_loss(&x, &dx, &y, &dy, a0);
  fd_grad_array(w_x, xin, N, NULL, fd);
  check_array("ptr_field_dx", dxd, fd, N, 1e-6, 1e-9);
  fd_grad_array(w_y, yin, N, NULL, fd);
  check_array("ptr_field_dy", dyd, fd, N, 1e-6, 1e-9);
  check_close("ptr_field_da", da, fd_deriv(w_a, a0, NULL), 1e-6, 1e-9);
  return test_exit();
}
