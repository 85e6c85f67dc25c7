// WHOLE-FLAGS: -fexceptions
// The __enzyme_autodiff call itself sits inside try/catch, so clang emits it as an
// `invoke` with a landing pad; the lowered gradient call cannot throw, so the block
// continues at the invoke's normal destination.
#include "enzyme_test.h"
#include <stdexcept>
#include <vector>

extern "C" double __enzyme_autodiff(void *, ...);

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
  double x[N], dx[N], fd[N];
  rng_seed(211);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  int caught = 0;
  try {
    if (model.w.empty()) throw std::runtime_error("no weights");
#ifdef REFERENCE_GRADIENT
    for (int i = 0; i < N; i++)
      dx[i] += model.w[i % model.w.size()] * (cos(x[i]) * x[i] + sin(x[i]));
#else
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);
#endif
  } catch (const std::exception &) {
    caught = 1;
  }
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("marker_in_try_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("marker_in_try_none_thrown", caught, 0.0, 0.0, 0.0);
  return test_exit();
}
