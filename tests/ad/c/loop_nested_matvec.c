/* Matrix-vector product y = A x written through an output array; A, x and y
 * are all dup.  Enzyme semantics: d_y is the seed, read and zeroed; d_A and
 * d_x accumulate.
 *
 * Forward mode (-DFORWARD_MODE): y = A x written through an
 * output array; A and x dup, the tangent lands in the shadow of y. */
#include "kernel_test.h"

__attribute__((noinline)) void matvec(const double *A, const double *x, double *y,
                                      int m, int n) {
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { M = 5, N = 7, NP = M * N + N };
static void w_mv(const double *p, double *y, void *ctx) {
  (void)ctx;
  matvec(p, p + M * N, y, M, N);
}

int main(void) {
  double p[NP], v[NP], y[M], dy[M], want[M];
  rng_seed(7);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  zero_array(dy, M);
  __enzyme_fwddiff((void *)matvec, enzyme_dup, p, v, enzyme_dup, p + M * N, v + M * N,
                   enzyme_dup, y, dy, enzyme_const, M, enzyme_const, N);
  fd_dir_vec(w_mv, p, v, NP, want, M, NULL);
  check_array("matvec_dy", dy, want, M, 1e-6, 1e-8);
  for (int i = 0; i < M; i++) {
    want[i] = 0.0;
    for (int j = 0; j < N; j++)
      want[i] += v[i * N + j] * p[M * N + j] + p[i * N + j] * v[M * N + j];
  }
  check_array("matvec_dy_exact", dy, want, M, 1e-13, 1e-14);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_matvec(const double *A, double *dA, const double *x, double *dx,
                            double *y, double *dy, int m, int n) {
  matvec(A, x, y, m, n);
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      dA[i * n + j] += dy[i] * x[j];
      dx[j] += A[i * n + j] * dy[i];
    }
    dy[i] = 0.0;
  }
}
#endif

static void grad_matvec(const double *A, double *dA, const double *x, double *dx,
                        double *y, double *dy, int m, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_matvec(A, dA, x, dx, y, dy, m, n);
#else
  __enzyme_autodiff((void *)matvec, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_dup, y,
                    dy, enzyme_const, m, enzyme_const, n);
#endif
}

enum { M = 5, N = 7 };
static double seed[M];
static double Abuf[M * N], xbuf[N];

static double w_A(const double *A, void *ctx) {
  (void)ctx;
  double y[M], s = 0.0;
  matvec(A, xbuf, y, M, N);
  for (int i = 0; i < M; i++) s += seed[i] * y[i];
  return s;
}
static double w_x(const double *x, void *ctx) {
  (void)ctx;
  double y[M], s = 0.0;
  matvec(Abuf, x, y, M, N);
  for (int i = 0; i < M; i++) s += seed[i] * y[i];
  return s;
}

int main(void) {
  double dA[M * N], dx[N], y[M], dy[M], fdA[M * N], fdx[N], yref[M], zeros[M];
  rng_seed(7);
  rng_fill(Abuf, M * N, -1.0, 1.0);
  rng_fill(xbuf, N, -1.0, 1.0);
  rng_fill(seed, M, -1.0, 1.0);
  zero_array(dA, M * N);
  zero_array(dx, N);
  zero_array(y, M);
  zero_array(zeros, M);
  memcpy(dy, seed, sizeof dy);
  grad_matvec(Abuf, dA, xbuf, dx, y, dy, M, N);
  fd_grad_array(w_A, Abuf, M * N, NULL, fdA);
  fd_grad_array(w_x, xbuf, N, NULL, fdx);
  check_array("matvec_dA", dA, fdA, M * N, 1e-6, 1e-8);
  check_array("matvec_dx", dx, fdx, N, 1e-6, 1e-8);
  check_array("matvec_dy_zeroed", dy, zeros, M, 0.0, 0.0);
  matvec(Abuf, xbuf, yref, M, N);
  check_array("matvec_primal_y", y, yref, M, 1e-12, 1e-14);
  return test_exit();
}
#endif /* FORWARD_MODE */
