// A class with methods: struct Model { double w, b, c; double eval(double x)
// const; void nudge(double); }.  The differentiated function takes the model
// by pointer (dup: the shadow Model accumulates d/dw, d/db, d/dc) and calls
// noinline const and non-const methods.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(Model *m, Model *dm, const double *xs, const double *ys, int n) {
  double w0 = m->w, b = m->b, c0 = m->c;
  double w = 1.1 * w0, c = c0 + 0.11 * b;
  double gw = dm->w, gb = 0.0, gc = dm->c; // shadow seeds the final model
  for (int i = 0; i < n; i++) {
    double t = tanh(xs[i] + b), r = w * t + c * xs[i] * xs[i] - ys[i];
    gw += 2.0 * r * t;
    gb += 2.0 * r * w * (1.0 - t * t);
    gc += 2.0 * r * xs[i] * xs[i];
  }
  dm->w = 1.1 * gw;
  dm->b += gb + 0.11 * gc;
  dm->c = gc;
  m->w = w;
  m->c = c;
}
#endif

static void grad_loss(Model *m, Model *dm, const double *xs, const double *ys, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(m, dm, xs, ys, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, m, dm, enzyme_const, xs, enzyme_const, ys,
                    enzyme_const, n);
#endif
}

enum { N = 10 };
static double xs[N], ys[N];
static double w_m(const double *p, void *) {
  Model m{p[0], p[1], p[2]};
  return loss(&m, xs, ys, N);
}

int main() {
  rng_seed(201);
  rng_fill(xs, N, -2.0, 2.0);
  rng_fill(ys, N, -1.0, 1.0);
  Model m{0.8, -0.3, 0.2}, dm{0.0, 0.0, 0.0};
  double p[3] = {m.w, m.b, m.c}, fd[3];
  grad_loss(&m, &dm, xs, ys, N);
  fd_grad_array(w_m, p, 3, nullptr, fd);
  double got[3] = {dm.w, dm.b, dm.c};
  check_array("model_dparams", got, fd, 3, 1e-6, 1e-9);
  return test_exit();
}
