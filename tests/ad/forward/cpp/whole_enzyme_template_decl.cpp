// Forward mode of tests/ad/whole/cpp/enzyme_template_decl.cpp: __enzyme_fwddiff declared
// as Enzyme's C++ examples do, a function template with C++ linkage (a mangled symbol),
// called with a function pointer, an unmarked double and its tangent.
#include "fwd_test.h"

template <typename RT, typename... Args>
RT __enzyme_fwddiff(Args...);

__attribute__((noinline)) double f(double x) { return x * sin(x) + exp(-x * x); }

static double w_x(double x, void *) { return f(x); }

int main() {
  static const double xs[] = {-0.9, 0.4, 1.8};
  static const double dxs[] = {1.0, -2.0, 0.5};
  char name[64];
  for (int t = 0; t < 3; t++) {
    double got = __enzyme_fwddiff<double>((void *)f, xs[t], dxs[t]);
    snprintf(name, sizeof name, "template_decl_jvp_%d", t);
    check_close(name, got, fd_deriv(w_x, xs[t], nullptr) * dxs[t], 1e-6, 1e-9);
  }
  return test_exit();
}
