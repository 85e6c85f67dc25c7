// std::vector<double> passed by const reference and indexed inside the
// differentiated function; the shadow is another vector of the same size
// (Enzyme style: &v, &dv).
#include "enzyme_test.h"
#include <vector>

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const std::vector<double> &v, const std::vector<double> &w) {
  double s = 0.0;
  for (size_t i = 0; i + 1 < v.size(); i++) s += w[i] * v[i] * v[i + 1] + sin(v[i]);
  return s + v.back() * v.front();
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const std::vector<double> &v, std::vector<double> &dv,
                          const std::vector<double> &w) {
  size_t n = v.size();
  for (size_t i = 0; i + 1 < n; i++) {
    dv[i] += w[i] * v[i + 1] + cos(v[i]);
    dv[i + 1] += w[i] * v[i];
  }
  dv[n - 1] += v[0];
  dv[0] += v[n - 1];
}
#endif

static void grad_loss(const std::vector<double> &v, std::vector<double> &dv,
                      const std::vector<double> &w) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(v, dv, w);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, &v, &dv, enzyme_const, &w);
#endif
}

enum { N = 9 };
static std::vector<double> *ws;
static double w_v(const double *x, void *) {
  std::vector<double> v(x, x + N);
  return loss(v, *ws);
}

int main() {
  rng_seed(204);
  std::vector<double> v(N), w(N), dv(N, 0.0);
  rng_fill(v.data(), N, -1.0, 1.0);
  rng_fill(w.data(), N, -1.0, 1.0);
  ws = &w;
  double fd[N];
  grad_loss(v, dv, w);
  fd_grad_array(w_v, v.data(), N, nullptr, fd);
  check_array("vector_index_dv", dv.data(), fd, N, 1e-6, 1e-9);
  return test_exit();
}
