/* Forward mode of tests/ad/whole/c/heap_matrix_rows.c: a double ** matrix of malloc'd
 * rows allocated inside the differentiated function; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double rowdot(const double *row, const double *v, int n) {
  double s = 0.0;
  for (int j = 0; j < n; j++) s += row[j] * v[j];
  return s;
}
__attribute__((noinline)) double loss(const double *x, int n) {
  double **A = (double **)malloc(sizeof(double *) * (size_t)n);
  for (int i = 0; i < n; i++) {
    A[i] = (double *)malloc(sizeof(double) * (size_t)n);
    for (int j = 0; j < n; j++) A[i][j] = x[i] * x[j] + sin(x[i] - x[j]);
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = rowdot(A[i], x, n);
    s += log(1.0 + r * r);
  }
  for (int i = 0; i < n; i++) free(A[i]);
  free(A);
  return s;
}

enum { N = 6 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(115);
  rng_fill(x, N, -1.0, 1.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "matrix_rows_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "matrix_rows_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
