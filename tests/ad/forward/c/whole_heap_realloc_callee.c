/* Forward mode of tests/ad/whole/c/heap_realloc_callee.c: a noinline push()
 * reallocs the buffer of a growable vector (a block allocated by the caller);
 * the shadow buffer is realloc'd alongside; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

typedef struct {
  double *data;
  int n, cap;
} dvec;

__attribute__((noinline)) static void push(dvec *v, double x) {
  if (v->n == v->cap) {
    v->cap = 2 * v->cap;
    v->data = (double *)realloc(v->data, sizeof(double) * (size_t)v->cap);
  }
  v->data[v->n++] = x;
}

__attribute__((noinline)) double loss(const double *x, int n) {
  dvec v = {(double *)malloc(sizeof(double)), 0, 1};
  for (int i = 0; i < n; i++) push(&v, x[i] * x[(i + 2) % n]);
  double s = 0.0;
  for (int i = 0; i < v.n; i++) s += sin(v.data[i]) * (i + 1);
  free(v.data);
  return s;
}

enum { N = 13 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(137);
  rng_fill(x, N, -1.2, 1.2);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "realloc_callee_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "realloc_callee_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
