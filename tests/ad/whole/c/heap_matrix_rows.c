/* A double** matrix (array of malloc'd row pointers) allocated inside the
 * differentiated function: A[i][j] = x[i] x[j] + sin(x[i] - x[j]); the loss
 * is sum_i log(1 + (A[i] . x)^2).  Rows and the row array are freed. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double r = 0.0;
    for (int j = 0; j < n; j++) r += (x[i] * x[j] + sin(x[i] - x[j])) * x[j];
    double g = 2.0 * r / (1.0 + r * r);
    for (int j = 0; j < n; j++) {
      double c = cos(x[i] - x[j]);
      /* d r / d x_j through A[i][j] * x[j] */
      dx[j] += g * ((x[i] * x[j] + sin(x[i] - x[j])) + (x[i] - c) * x[j]);
      /* d r / d x_i through A[i][j] */
      dx[i] += g * (x[j] + c) * x[j];
    }
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 6 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(115);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("matrix_rows_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("matrix_rows_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
