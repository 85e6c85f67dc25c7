// An object with a std::vector<double> member: struct Spline { std::vector<double>
// coef; double scale; double eval(double) const; }.  The differentiated
// function takes the object by pointer (dup); the shadow object holds a
// zero vector of the same size (Enzyme style).
#include "enzyme_test.h"
#include <vector>

extern "C" double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const Spline *s, Spline *ds, const double *ts, const double *ys, int n) {
  size_t m = s->coef.size();
  for (int i = 0; i < n; i++) {
    double r = 0.0, p = 1.0;
    for (size_t k = 0; k < m; k++) { r += s->coef[k] * p; p *= ts[i]; }
    double th = tanh(r), e = s->scale * th - ys[i], g = 2.0 * e;
    ds->scale += g * th;
    p = 1.0;
    for (size_t k = 0; k < m; k++) { ds->coef[k] += g * s->scale * (1.0 - th * th) * p; p *= ts[i]; }
  }
}
#endif

static void grad_loss(const Spline *s, Spline *ds, const double *ts, const double *ys, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(s, ds, ts, ys, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, s, ds, enzyme_const, ts, enzyme_const, ys,
                    enzyme_const, n);
#endif
}

enum { N = 11, K = 4 };
static double ts[N], ys[N];
static double w_p(const double *p, void *) {
  Spline s{std::vector<double>(p, p + K), p[K]};
  return loss(&s, ts, ys, N);
}

int main() {
  rng_seed(208);
  rng_fill(ts, N, -1.0, 1.0);
  rng_fill(ys, N, -0.8, 0.8);
  Spline s{{0.2, -0.5, 0.3, 0.1}, 1.2};
  Spline ds{std::vector<double>(K, 0.0), 0.0};
  double p[K + 1], fd[K + 1], got[K + 1];
  for (int k = 0; k < K; k++) p[k] = s.coef[k];
  p[K] = s.scale;
  grad_loss(&s, &ds, ts, ys, N);
  for (int k = 0; k < K; k++) got[k] = ds.coef[k];
  got[K] = ds.scale;
  fd_grad_array(w_p, p, K + 1, nullptr, fd);
  check_array("vector_member_grad", got, fd, K + 1, 1e-6, 1e-9);
  return test_exit();
}
