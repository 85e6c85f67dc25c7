/* A double ** matrix (array of row pointers) passed to the differentiated
 * function with a shadow double ** whose rows are the shadow rows; a noinline
 * callee takes one row at a time.  L = sum_i tanh(A[i] . v)^2. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(double **A, double **dA, const double *v, double *dv, int n, int m) {
  for (int i = 0; i < n; i++) {
    double r = 0.0;
    for (int j = 0; j < m; j++) r += A[i][j] * v[j];
    double t = tanh(r), g = 2.0 * t * (1.0 - t * t);
    for (int j = 0; j < m; j++) {
      dA[i][j] += g * v[j];
      dv[j] += g * A[i][j];
    }
  }
}
#endif

static void grad_loss(double **A, double **dA, const double *v, double *dv, int n, int m) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(A, dA, v, dv, n, m);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, A, dA, enzyme_dup, v, dv, enzyme_const, n,
                    enzyme_const, m);
#endif
}

enum { N = 4, M = 5 };
static double store[N][M], vs[M];
static double w_A(const double *flat, void *c) {
  (void)c;
  double rows[N][M];
  double *A[N];
  memcpy(rows, flat, sizeof rows);
  for (int i = 0; i < N; i++) A[i] = rows[i];
  return loss(A, vs, N, M);
}
static double w_v(const double *v, void *c) {
  (void)c;
  double *A[N];
  for (int i = 0; i < N; i++) A[i] = store[i];
  return loss(A, v, N, M);
}

int main(void) {
  double dstore[N][M], dv[M], fdA[N * M], fdv[M];
  double *A[N], *dA[N];
  rng_seed(119);
  rng_fill(&store[0][0], N * M, -1.0, 1.0);
  rng_fill(vs, M, -1.0, 1.0);
  zero_array(&dstore[0][0], N * M);
  zero_array(dv, M);
  for (int i = 0; i < N; i++) { A[i] = store[i]; dA[i] = dstore[i]; }
  grad_loss(A, dA, vs, dv, N, M);
  fd_grad_array(w_A, &store[0][0], N * M, NULL, fdA);
  check_array("row_pointers_dA", &dstore[0][0], fdA, N * M, 1e-6, 1e-9);
  fd_grad_array(w_v, vs, M, NULL, fdv);
  check_array("row_pointers_dv", dv, fdv, M, 1e-6, 1e-9);
  return test_exit();
}
