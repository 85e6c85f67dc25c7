// A small vector class with overloaded operators returning by value
// (Vec3 + Vec3, double * Vec3, dot, cross) in noinline functions: the
// torque-like loss sum |r_i x f_i|^2 + (r_i . f_i).
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

struct Vec3 {
  double x, y, z;
};
__attribute__((noinline)) Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__attribute__((noinline)) Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
__attribute__((noinline)) double dot(const Vec3 &a, const Vec3 &b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
__attribute__((noinline)) Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__attribute__((noinline)) double loss(const Vec3 *r, const Vec3 *f, int n) {
  double s = 0.0;
  Vec3 center = {0.0, 0.0, 0.0};
  for (int i = 0; i < n; i++) center = center + (1.0 / n) * r[i];
  for (int i = 0; i < n; i++) {
    Vec3 c = cross(r[i] + (-1.0) * center, f[i]);
    s += dot(c, c) + dot(r[i], f[i]);
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
// hand-written forward mode over the 3n coordinates of r
static double loss_tan(const Vec3 *r, const Vec3 *dr, const Vec3 *f, int n) {
  Vec3 c0 = {0, 0, 0}, dc0 = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    c0 = {c0.x + r[i].x / n, c0.y + r[i].y / n, c0.z + r[i].z / n};
    dc0 = {dc0.x + dr[i].x / n, dc0.y + dr[i].y / n, dc0.z + dr[i].z / n};
  }
  double ds = 0.0;
  for (int i = 0; i < n; i++) {
    Vec3 a = {r[i].x - c0.x, r[i].y - c0.y, r[i].z - c0.z};
    Vec3 da = {dr[i].x - dc0.x, dr[i].y - dc0.y, dr[i].z - dc0.z};
    Vec3 c = {a.y * f[i].z - a.z * f[i].y, a.z * f[i].x - a.x * f[i].z, a.x * f[i].y - a.y * f[i].x};
    Vec3 dcr = {da.y * f[i].z - da.z * f[i].y, da.z * f[i].x - da.x * f[i].z,
                da.x * f[i].y - da.y * f[i].x};
    ds += 2.0 * (c.x * dcr.x + c.y * dcr.y + c.z * dcr.z) + dr[i].x * f[i].x +
          dr[i].y * f[i].y + dr[i].z * f[i].z;
  }
  return ds;
}
static void ref_grad_loss(const Vec3 *r, Vec3 *dr, const Vec3 *f, int n) {
  Vec3 t[16];
  for (int j = 0; j < 3 * n; j++) {
    for (int i = 0; i < n; i++) t[i] = {0.0, 0.0, 0.0};
    ((double *)t)[j] = 1.0;
    ((double *)dr)[j] += loss_tan(r, t, f, n);
  }
}
#endif

static void grad_loss(const Vec3 *r, Vec3 *dr, const Vec3 *f, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(r, dr, f, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, r, dr, enzyme_const, f, enzyme_const, n);
#endif
}

enum { N = 4 };
static Vec3 fs[N];
static double w_r(const double *x, void *) {
  Vec3 r[N];
  memcpy(r, x, sizeof r);
  return loss(r, fs, N);
}

int main() {
  Vec3 r[N], dr[N];
  double fd[3 * N];
  rng_seed(212);
  rng_fill((double *)r, 3 * N, -1.0, 1.0);
  rng_fill((double *)fs, 3 * N, -1.0, 1.0);
  zero_array((double *)dr, 3 * N);
  grad_loss(r, dr, fs, N);
  fd_grad_array(w_r, (const double *)r, 3 * N, nullptr, fd);
  check_array("operators_dr", (const double *)dr, fd, 3 * N, 1e-6, 1e-9);
  return test_exit();
}
