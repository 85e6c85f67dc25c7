/* Forward mode of tests/ad/whole/c/matrix_row_pointers.c: a double ** matrix (array of row
 * pointers) with a shadow double ** whose rows are the tangent rows; a noinline callee takes
 * one row at a time.  L = sum_i tanh(A[i] . v)^2, A and v varied together. */
#include "fwd_test.h"
#include <string.h>

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double rowdot(const double *row, const double *v, int m) {
  double s = 0.0;
  for (int j = 0; j < m; j++) s += row[j] * v[j];
  return s;
}
__attribute__((noinline)) double loss(double **A, const double *v, int n, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = tanh(rowdot(A[i], v, m));
    s += t * t;
  }
  return s;
}

enum { N = 4, M = 5, P = N * M + M };
/* x = (A row by row, v) */
static double w_all(const double *x, void *c) {
  (void)c;
  double rows[N][M];
  double *A[N];
  memcpy(rows, x, sizeof rows);
  for (int i = 0; i < N; i++) A[i] = rows[i];
  return loss(A, x + N * M, N, M);
}

int main(void) {
  double x[P], dx[P];
  double *A[N], *dA[N];
  char name[64];
  rng_seed(119);
  rng_fill(x, P, -1.0, 1.0);
  for (int i = 0; i < N; i++) { A[i] = x + i * M; dA[i] = dx + i * M; }
  for (int d = 0; d < 2; d++) {
    rng_fill(dx, P, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, A, dA, enzyme_dup, x + N * M,
                                dx + N * M, enzyme_const, N, enzyme_const, M);
    snprintf(name, sizeof name, "row_pointers_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, x, dx, P, NULL), 1e-6, 1e-9);
  }
  /* only v varies: the rows are const */
  double v[M];
  rng_fill(v, M, -1.0, 1.0);
  double dv[P];
  zero_array(dv, P);
  memcpy(dv + N * M, v, sizeof v);
  double t = __enzyme_fwddiff((void *)loss, enzyme_const, A, enzyme_dup, x + N * M, v,
                              enzyme_const, N, enzyme_const, M);
  check_close("row_pointers_const_rows_jvp", t, fd_dir(w_all, x, dv, P, NULL), 1e-6, 1e-9);
  return test_exit();
}
