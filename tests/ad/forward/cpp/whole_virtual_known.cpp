// Forward mode of tests/ad/whole/cpp/virtual_known.cpp: virtual calls whose dynamic type is
// known inside the differentiated function (objects constructed there): devirtualized at
// -O2, a vtable load plus an indirect call at -O0.
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 8 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(211);
  rng_fill(x, N, 0.1, 2.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "virtual_known_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
