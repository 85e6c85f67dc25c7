/* In-place Gauss-Seidel sweeps for A x = b on a dup x (initial guess in,
 * iterate out); A and b dup.  void function, outputs only through memory.
 *
 * Forward mode (-DFORWARD_MODE): in-place Gauss-Seidel sweeps for
 * A x = b; A, b and the iterate x all dup, the tangent of x updated in place. */
#include "kernel_test.h"

__attribute__((noinline)) void gauss_seidel(const double *A, const double *b, double *x,
                                            int n, int sweeps) {
  for (int s = 0; s < sweeps; s++) {
    for (int i = 0; i < n; i++) {
      double r = b[i];
      for (int j = 0; j < n; j++)
        if (j != i) r -= A[i * n + j] * x[j];
      x[i] = r / A[i * n + i];
    }
  }
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 5, SWEEPS = 8, NP = N * N + 2 * N };
/* p = A, b, x0 */
static void w_gs(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N * N + N, N * sizeof(double));
  gauss_seidel(p, p + N * N, out, N, SWEEPS);
}

int main(void) {
  double p[NP], v[NP], x[N], dx[N], want[N];
  rng_seed(18);
  rng_fill(p, N * N, -1.0, 1.0);
  for (int i = 0; i < N; i++) p[i * N + i] = 4.0 + 0.5 * i;
  rng_fill(p + N * N, N, -1.0, 1.0);
  rng_fill(p + N * N + N, N, -0.5, 0.5);
  rng_fill(v, NP, -1.0, 1.0);
  memcpy(x, p + N * N + N, sizeof x);
  memcpy(dx, v + N * N + N, sizeof dx);
  __enzyme_fwddiff((void *)gauss_seidel, enzyme_dup, p, v, enzyme_dup, p + N * N, v + N * N,
                   enzyme_dup, x, dx, enzyme_const, N, enzyme_const, SWEEPS);
  fd_dir_vec(w_gs, p, v, NP, want, N, NULL);
  check_array("gauss_seidel_dx", dx, want, N, 1e-6, 1e-9);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

enum { N = 5, SWEEPS = 8 };

#ifdef REFERENCE_GRADIENT
static void gs_tan(const double *A, const double *Ad, const double *b, const double *bd,
                   double *x, double *xd, int n, int sweeps) {
  for (int s = 0; s < sweeps; s++)
    for (int i = 0; i < n; i++) {
      double r = b[i], rd = bd[i];
      for (int j = 0; j < n; j++)
        if (j != i) {
          r -= A[i * n + j] * x[j];
          rd -= Ad[i * n + j] * x[j] + A[i * n + j] * xd[j];
        }
      double d = A[i * n + i];
      xd[i] = (rd * d - r * Ad[i * n + i]) / (d * d);
      x[i] = r / d;
    }
}
static void ref_grad_gs(const double *A, double *dA, const double *b, double *db, double *x,
                        double *dx, int n, int sweeps) {
  double Ad[N * N], bd[N], xx[N], xd[N], gx[N];
  for (int j = 0; j < n * n + 2 * n; j++) {
    zero_array(Ad, n * n);
    zero_array(bd, n);
    zero_array(xd, n);
    if (j < n * n) Ad[j] = 1.0;
    else if (j < n * n + n) bd[j - n * n] = 1.0;
    else xd[j - n * n - n] = 1.0;
    memcpy(xx, x, sizeof(double) * n);
    gs_tan(A, Ad, b, bd, xx, xd, n, sweeps);
    double g = 0.0;
    for (int i = 0; i < n; i++) g += dx[i] * xd[i];
    if (j < n * n) dA[j] += g;
    else if (j < n * n + n) db[j - n * n] += g;
    else gx[j - n * n - n] = g;
  }
  gauss_seidel(A, b, x, n, sweeps);
  memcpy(dx, gx, sizeof(double) * n);
}
#endif

static void grad_gs(const double *A, double *dA, const double *b, double *db, double *x,
                    double *dx, int n, int sweeps) {
#ifdef REFERENCE_GRADIENT
  ref_grad_gs(A, dA, b, db, x, dx, n, sweeps);
#else
  __enzyme_autodiff((void *)gauss_seidel, enzyme_dup, A, dA, enzyme_dup, b, db, enzyme_dup, x,
                    dx, enzyme_const, n, enzyme_const, sweeps);
#endif
}

static double Ab[N * N], bb[N], xb[N], seed[N];
static double seeded(const double *A, const double *b, const double *x0) {
  double x[N], s = 0.0;
  memcpy(x, x0, sizeof x);
  gauss_seidel(A, b, x, N, SWEEPS);
  for (int i = 0; i < N; i++) s += seed[i] * x[i];
  return s;
}
static double w_A(const double *A, void *c) { (void)c; return seeded(A, bb, xb); }
static double w_b(const double *b, void *c) { (void)c; return seeded(Ab, b, xb); }
static double w_x(const double *x, void *c) { (void)c; return seeded(Ab, bb, x); }

int main(void) {
  double dA[N * N], db[N], x[N], dx[N], fdA[N * N], fdb[N], fdx[N];
  rng_seed(18);
  rng_fill(Ab, N * N, -1.0, 1.0);
  for (int i = 0; i < N; i++) Ab[i * N + i] = 4.0 + 0.5 * i;
  rng_fill(bb, N, -1.0, 1.0);
  rng_fill(xb, N, -0.5, 0.5);
  rng_fill(seed, N, -1.0, 1.0);
  zero_array(dA, N * N);
  zero_array(db, N);
  memcpy(x, xb, sizeof x);
  memcpy(dx, seed, sizeof dx);
  grad_gs(Ab, dA, bb, db, x, dx, N, SWEEPS);
  fd_grad_array(w_A, Ab, N * N, NULL, fdA);
  fd_grad_array(w_b, bb, N, NULL, fdb);
  fd_grad_array(w_x, xb, N, NULL, fdx);
  check_array("gauss_seidel_dA", dA, fdA, N * N, 1e-6, 1e-9);
  check_array("gauss_seidel_db", db, fdb, N, 1e-6, 1e-9);
  check_array("gauss_seidel_dx0", dx, fdx, N, 1e-6, 1e-9);
  return test_exit();
}
#endif /* FORWARD_MODE */
