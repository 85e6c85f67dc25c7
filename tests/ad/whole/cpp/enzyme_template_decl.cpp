// __enzyme_autodiff declared the way Enzyme's C++ examples do, as a function
// template with C++ linkage (so its symbol is mangled, e.g.
// _Z17__enzyme_autodiffIdJPFddEdEET_DpT0_), and called with a function
// pointer and an active double.
#include "enzyme_test.h"

template <typename RT, typename... Args>
RT __enzyme_autodiff(Args...);

__attribute__((noinline)) double f(double x) { return x * sin(x) + exp(-x * x); }

#ifdef REFERENCE_GRADIENT
static double ref_grad_f(double x) { return sin(x) + x * cos(x) - 2.0 * x * exp(-x * x); }
#endif

static double grad_f(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_f(x);
#else
  return __enzyme_autodiff<double>(f, x);
#endif
}

static double w_x(double x, void *) { return f(x); }

int main() {
  static const double xs[] = {-0.9, 0.4, 1.8};
  char name[64];
  for (int t = 0; t < 3; t++) {
    snprintf(name, sizeof name, "template_decl_dx_%d", t);
    check_close(name, grad_f(xs[t]), fd_deriv(w_x, xs[t], nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
