// std::vector<double>::push_back inside the differentiated function (the
// vector grows: operator new / memmove / operator delete), then indexing and a
// reduction; the vector is destroyed on return.  No leak (mallinfo2).
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>
#include <vector>

// Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n) {
  std::vector<double> feats;
  for (int i = 0; i < n; i++) {
    feats.push_back(x[i] * x[i]);
    feats.push_back(sin(x[i]));
  }
  double s = 0.0;
  for (size_t k = 0; k + 1 < feats.size(); k++) s += feats[k] * feats[k + 1];
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  (void)loss(x, n); // the primal allocates and frees, as the real gradient does
  double f[128], g[128];
  int m = 2 * n;
  for (int i = 0; i < n; i++) { f[2 * i] = x[i] * x[i]; f[2 * i + 1] = sin(x[i]); }
  for (int k = 0; k < m; k++) g[k] = 0.0;
  for (int k = 0; k + 1 < m; k++) { g[k] += f[k + 1]; g[k + 1] += f[k]; }
  for (int i = 0; i < n; i++) dx[i] += g[2 * i] * 2.0 * x[i] + g[2 * i + 1] * cos(x[i]);
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 9 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(205);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); // the malloc arena and its thread cache
  free(warm);                      // exist before heap0 is read
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("push_back_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("push_back_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
