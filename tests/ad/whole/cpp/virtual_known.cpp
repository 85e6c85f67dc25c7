// Virtual calls whose dynamic type is known inside the differentiated
// function (objects constructed there): devirtualized at -O2, a vtable load
// plus indirect call at -O0.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

struct Shape {
  virtual ~Shape() {}
  virtual double area(double s) const = 0;
};
struct Square : Shape {
  double area(double s) const override { return s * s; }
};
struct Circle : Shape {
  double area(double r) const override { return 3.141592653589793 * r * r * (1.0 + 0.1 * sin(r)); }
};

__attribute__((noinline)) double total(const Shape &a, const Shape &b, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (i % 2 ? a.area(x[i]) : b.area(x[i]));
  return s;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  Square sq;
  Circle ci;
  return total(sq, ci, x, n);
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  const double pi = 3.141592653589793;
  for (int i = 0; i < n; i++) {
    double r = x[i];
    dx[i] += (i % 2) ? 2.0 * r : pi * (2.0 * r * (1.0 + 0.1 * sin(r)) + r * r * 0.1 * cos(r));
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

enum { N = 8 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(211);
  rng_fill(x, N, 0.1, 2.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("virtual_known_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
