/* Forward mode of tests/ad/whole/c/heap_aligned.c: a posix_memalign'd buffer
 * filled by a noinline callee and an aligned_alloc'd (64-byte) row, freed
 * before returning; the shadows get the same alignment; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static void fill(double *restrict b, const double *restrict x, int n) {
  for (int i = 0; i < n; i++) b[i] = sin(x[i]) * x[i];
}

__attribute__((noinline)) double loss(const double *x, int n) {
  double *b = NULL;
  if (posix_memalign((void **)&b, 32, sizeof(double) * (size_t)n) != 0) return 0.0;
  double *row = (double *)aligned_alloc(64, 64 * (((size_t)n * sizeof(double) + 63) / 64));
  fill(b, x, n);
  for (int i = 0; i < n; i++) row[i] = b[i] * b[(i + 1) % n];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += row[i] + 0.5 * b[i];
  free(row);
  free(b);
  return s;
}

enum { N = 11 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(131);
  rng_fill(x, N, -1.5, 1.5);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "aligned_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "aligned_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
