// Forward mode of tests/ad/whole/cpp/stl_algorithms.cpp: std::transform, inner_product,
// accumulate, max / min and range-for over std::vectors local to the differentiated
// function (heap storage).  No leak.
#include "fwd_test.h"
#include <algorithm>
#include <malloc.h>
#include <numeric>
#include <stdlib.h>
#include <vector>

// Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_fwddiff(void *, ...);

static double ws[9];

__attribute__((noinline)) double loss_w(const double *x, const double *w, int n) {
  std::vector<double> v(x, x + n), t(n);
  std::transform(v.begin(), v.end(), t.begin(), [](double a) { return std::tanh(a); });
  double ip = std::inner_product(t.begin(), t.end(), w, 0.0);
  double sum = std::accumulate(v.begin(), v.end(), 0.0);
  double clip = 0.0;
  for (double a : v) clip += std::max(-0.5, std::min(a, 0.5)) * a;
  return ip * ip + 0.1 * sum * sum + clip;
}
__attribute__((noinline)) double loss(const double *x, int n) { return loss_w(x, ws, n); }

enum { N = 9 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(216);
  rng_fill(x, N, -1.2, 1.2);
  rng_fill(ws, N, -1.0, 1.0);
  void *volatile warm = malloc(1); // the malloc arena exists before heap0 is read
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "stl_algorithms_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "stl_algorithms_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
