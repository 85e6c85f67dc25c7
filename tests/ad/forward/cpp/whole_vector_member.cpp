// Forward mode of tests/ad/whole/cpp/vector_member.cpp: an object with a std::vector<double>
// member (struct Spline { std::vector<double> coef; double scale; }) taken by pointer (dup);
// the shadow object holds a vector of the same size with the direction.
#include "fwd_test.h"
#include <vector>

extern "C" double __enzyme_fwddiff(void *, ...);

struct Spline {
  std::vector<double> coef;
  double scale;
  __attribute__((noinline)) double eval(double t) const {
    double r = 0.0, p = 1.0;
    for (size_t k = 0; k < coef.size(); k++) {
      r += coef[k] * p;
      p *= t;
    }
    return scale * tanh(r);
  }
};

__attribute__((noinline)) double loss(const Spline *s, const double *ts, const double *ys, int n) {
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double r = s->eval(ts[i]) - ys[i];
    l += r * r;
  }
  return l;
}

enum { N = 11, K = 4 };
static double ts[N], ys[N];
static double w_p(const double *p, void *) {
  Spline s{std::vector<double>(p, p + K), p[K]};
  return loss(&s, ts, ys, N);
}

int main() {
  char name[64];
  rng_seed(208);
  rng_fill(ts, N, -1.0, 1.0);
  rng_fill(ys, N, -0.8, 0.8);
  double p[K + 1] = {0.2, -0.5, 0.3, 0.1, 1.2}, v[K + 1];
  Spline s{std::vector<double>(p, p + K), p[K]};
  for (int d = 0; d < 2; d++) {
    rng_fill(v, K + 1, -1.0, 1.0);
    Spline ds{std::vector<double>(v, v + K), v[K]};
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &s, &ds, enzyme_const, ts,
                                enzyme_const, ys, enzyme_const, N);
    snprintf(name, sizeof name, "vector_member_jvp_%d", d);
    check_close(name, t, fd_dir(w_p, p, v, K + 1, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
