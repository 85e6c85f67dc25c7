/* Forward mode of tests/ad/whole/c/struct_ptr_field.c: structs { double *data; int n; }
 * passed by pointer, the shadow struct pointing at the shadow array; vaxpy updates y->data in
 * place (y <- y + a x).  x, y and a vary together; y's shadow is updated in place. */
#include "fwd_test.h"
#include <string.h>

double __enzyme_fwddiff(void *, ...);

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

enum { N = 8, P = 2 * N + 1 };
/* z = (x, y, a) */
static double w_all(const double *z, void *c) {
  (void)c;
  double xx[N], yy[N];
  memcpy(xx, z, sizeof xx);
  memcpy(yy, z + N, sizeof yy);
  vec x = {xx, N}, y = {yy, N};
  return loss(&x, &y, z[2 * N]);
}
static void w_y_out(const double *z, double *out, void *c) {
  (void)c;
  double xx[N];
  memcpy(xx, z, sizeof xx);
  memcpy(out, z + N, sizeof(double) * N);
  vec x = {xx, N}, y = {out, N};
  loss(&x, &y, z[2 * N]);
}

int main(void) {
  double z[P], v[P], xd[N], yd[N], dxd[N], dyd[N], fd[N];
  char name[64];
  rng_seed(118);
  rng_fill(z, 2 * N, -1.0, 1.0);
  z[2 * N] = 0.7;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, P, -1.0, 1.0);
    memcpy(xd, z, sizeof xd);
    memcpy(yd, z + N, sizeof yd);
    memcpy(dxd, v, sizeof dxd);
    memcpy(dyd, v + N, sizeof dyd);
    vec x = {xd, N}, y = {yd, N}, dx = {dxd, N}, dy = {dyd, N};
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy,
                                enzyme_dup, z[2 * N], v[2 * N]);
    snprintf(name, sizeof name, "ptr_field_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, P, NULL), 1e-6, 1e-9);
    fd_dir_vec(w_y_out, z, v, P, fd, N, NULL);
    snprintf(name, sizeof name, "ptr_field_dy_%d", d);
    check_array(name, dyd, fd, N, 1e-6, 1e-9);
  }
  return test_exit();
}
