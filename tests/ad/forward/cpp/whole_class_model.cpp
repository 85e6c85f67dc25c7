// Forward mode of tests/ad/whole/cpp/class_model.cpp: a class with noinline const and
// non-const methods; the model is taken by pointer (dup: the shadow Model holds the
// direction, nudge() updates both in place).
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

struct Model {
  double w, b, c;
  __attribute__((noinline)) double eval(double x) const { return w * tanh(x + b) + c * x * x; }
  __attribute__((noinline)) void nudge(double s) {
    w *= s;
    c += 0.1 * s * b;
  }
};

__attribute__((noinline)) double loss(Model *m, const double *xs, const double *ys, int n) {
  m->nudge(1.1);
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = m->eval(xs[i]) - ys[i];
    s += r * r;
  }
  return s;
}

enum { N = 10 };
static double xs[N], ys[N];
static double w_m(const double *p, void *) {
  Model m{p[0], p[1], p[2]};
  return loss(&m, xs, ys, N);
}

int main() {
  char name[64];
  rng_seed(201);
  rng_fill(xs, N, -2.0, 2.0);
  rng_fill(ys, N, -1.0, 1.0);
  double p[3] = {0.8, -0.3, 0.2}, v[3];
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 3, -1.0, 1.0);
    Model m{p[0], p[1], p[2]}, dm{v[0], v[1], v[2]};
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &m, &dm, enzyme_const, xs,
                                enzyme_const, ys, enzyme_const, N);
    snprintf(name, sizeof name, "model_jvp_%d", d);
    check_close(name, t, fd_dir(w_m, p, v, 3, nullptr), 1e-6, 1e-9);
    snprintf(name, sizeof name, "model_nudged_dw_%d", d);
    check_close(name, dm.w, 1.1 * v[0], 1e-12, 1e-14);
  }
  return test_exit();
}
