// Forward mode of tests/ad/whole/cpp/vector_index.cpp: std::vector<double> passed by const
// reference and indexed; the shadow is another vector of the same size (Enzyme style: &v,
// &dv), holding the direction.
#include "fwd_test.h"
#include <vector>

extern "C" double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double loss(const std::vector<double> &v, const std::vector<double> &w) {
  double s = 0.0;
  for (size_t i = 0; i + 1 < v.size(); i++) s += w[i] * v[i] * v[i + 1] + sin(v[i]);
  return s + v.back() * v.front();
}

enum { N = 9 };
static std::vector<double> *ws;
static double w_v(const double *x, void *) {
  std::vector<double> v(x, x + N);
  return loss(v, *ws);
}

int main() {
  char name[64];
  rng_seed(204);
  std::vector<double> v(N), w(N), dv(N);
  rng_fill(v.data(), N, -1.0, 1.0);
  rng_fill(w.data(), N, -1.0, 1.0);
  ws = &w;
  for (int d = 0; d < 2; d++) {
    rng_fill(dv.data(), N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &v, &dv, enzyme_const, &w);
    snprintf(name, sizeof name, "vector_index_jvp_%d", d);
    check_close(name, t, fd_dir(w_v, v.data(), dv.data(), N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
