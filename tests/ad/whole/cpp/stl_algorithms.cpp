// STL algorithms over a std::vector<double> local to the differentiated
// function: std::transform, std::inner_product, std::accumulate, std::max /
// std::min, range-for.  (The local vectors live on the heap.)  No leak.
#include "enzyme_test.h"
#include <algorithm>
#include <malloc.h>
#include <numeric>
#include <stdlib.h>
#include <vector>

// Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, const double *w, int n) {
  std::vector<double> v(x, x + n), t(n);
  std::transform(v.begin(), v.end(), t.begin(), [](double a) { return std::tanh(a); });
  double ip = std::inner_product(t.begin(), t.end(), w, 0.0);
  double sum = std::accumulate(v.begin(), v.end(), 0.0);
  double clip = 0.0;
  for (double a : v) clip += std::max(-0.5, std::min(a, 0.5)) * a;
  return ip * ip + 0.1 * sum * sum + clip;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *w, int n) {
  (void)loss(x, w, n); // the primal allocates and frees, as the real gradient does
  double ip = 0.0, sum = 0.0;
  for (int i = 0; i < n; i++) { ip += std::tanh(x[i]) * w[i]; sum += x[i]; }
  for (int i = 0; i < n; i++) {
    double t = std::tanh(x[i]);
    double c = std::max(-0.5, std::min(x[i], 0.5));
    double dc = (x[i] > -0.5 && x[i] < 0.5) ? 1.0 : 0.0;
    dx[i] += 2.0 * ip * w[i] * (1.0 - t * t) + 0.2 * sum + c + dc * x[i];
  }
}
#endif

static void grad_loss(const double *x, double *dx, const double *w, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, w, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
}

enum { N = 9 };
static double ws[N];
static double w_x(const double *x, void *) { return loss(x, ws, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(216);
  rng_fill(x, N, -1.2, 1.2);
  rng_fill(ws, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); // the malloc arena and its thread cache
  free(warm);                      // exist before heap0 is read
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, ws, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("stl_algorithms_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("stl_algorithms_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
