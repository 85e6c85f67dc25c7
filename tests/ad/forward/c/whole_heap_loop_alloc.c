/* Forward mode of tests/ad/whole/c/heap_loop_alloc.c: a heap array allocated
 * and freed in every iteration of an outer loop; x and t carry tangents, and
 * the tangent call leaks nothing. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, double t, int n, int steps) {
  double acc = 0.0;
  for (int k = 0; k < steps; k++) {
    double *buf = (double *)malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) buf[i] = sin(x[i] + k * t) * x[(i + 1) % n];
    double s = 0.0;
    for (int i = 0; i < n; i++) s += buf[i] * buf[i];
    acc += sqrt(s + 1.0);
    free(buf);
  }
  return acc;
}

enum { N = 7, STEPS = 5 };
/* p = x, t */
static double w_p(const double *p, void *c) { (void)c; return loss(p, p[N], N, STEPS); }

int main(void) {
  double p[N + 1], v[N + 1];
  rng_seed(113);
  rng_fill(p, N, -1.0, 1.0);
  p[N] = 0.37;
  rng_fill(v, N + 1, -1.0, 1.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  size_t heap0 = mallinfo2().uordblks;
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, p, v, enzyme_dup, p[N], v[N],
                              enzyme_const, N, enzyme_const, STEPS);
  size_t heap1 = mallinfo2().uordblks;
  check_close("loop_alloc_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  check_close("loop_alloc_jvp", t, fd_dir(w_p, p, v, N + 1, NULL), 1e-6, 1e-9);
  return test_exit();
}
