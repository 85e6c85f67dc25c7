// WHOLE-FLAGS: -fexceptions
// Forward mode of tests/ad/whole/cpp/exceptions_marker_in_try.cpp: the __enzyme_fwddiff
// call itself sits inside try/catch, so clang emits it as an `invoke` with a landing pad;
// the lowered derivative call cannot throw, so the block continues at the normal
// destination.
#include "fwd_test.h"
#include <stdexcept>
#include <vector>

extern "C" double __enzyme_fwddiff(void *, ...);

struct Model {
  std::vector<double> w;
  double loss(const double *x, int n) const {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += w[i % w.size()] * sin(x[i]) * x[i];
    return s;
  }
};

static Model model{{1.0, 2.0, 0.5}};

double loss(const double *x, int n) { return model.loss(x, n); }

enum { N = 7 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N], t = 0.0;
  rng_seed(211);
  rng_fill(x, N, -1.5, 1.5);
  rng_fill(v, N, -1.0, 1.0);
  int caught = 0;
  try {
    if (model.w.empty()) throw std::runtime_error("no weights");
    t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
  } catch (const std::exception &) {
    caught = 1;
  }
  check_close("marker_in_try_jvp", t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  check_close("marker_in_try_none_thrown", caught, 0.0, 0.0, 0.0);
  return test_exit();
}
