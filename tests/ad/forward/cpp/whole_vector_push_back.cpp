// Forward mode of tests/ad/whole/cpp/vector_push_back.cpp: std::vector<double>::push_back
// inside the differentiated function (the vector grows: operator new / memmove / operator
// delete), then indexing and a reduction.  No leak.
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>
#include <vector>

// Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 9 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(205);
  rng_fill(x, N, -1.0, 1.0);
  void *volatile warm = malloc(1); // the malloc arena exists before heap0 is read
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "push_back_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "push_back_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
