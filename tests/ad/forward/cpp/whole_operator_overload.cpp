// Forward mode of tests/ad/whole/cpp/operator_overload.cpp: a small vector class with
// overloaded operators returning by value (Vec3 + Vec3, double * Vec3, dot, cross) in
// noinline functions; the loss sum |r_i x f_i|^2 + (r_i . f_i); r and f vary together.
#include "fwd_test.h"
#include <string.h>

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 4, P = 6 * N };
static double w_rf(const double *z, void *) {
  Vec3 r[N], f[N];
  memcpy(r, z, sizeof r);
  memcpy(f, z + 3 * N, sizeof f);
  return loss(r, f, N);
}

int main() {
  double z[P], v[P];
  char name[64];
  rng_seed(212);
  rng_fill(z, P, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, P, -1.0, 1.0);
    Vec3 r[N], f[N], dr[N], df[N];
    memcpy(r, z, sizeof r);
    memcpy(f, z + 3 * N, sizeof f);
    memcpy(dr, v, sizeof dr);
    memcpy(df, v + 3 * N, sizeof df);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, r, dr, enzyme_dup, f, df,
                                enzyme_const, N);
    snprintf(name, sizeof name, "operators_jvp_%d", d);
    check_close(name, t, fd_dir(w_rf, z, v, P, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
