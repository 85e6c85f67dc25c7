/* Forward substitution L y = b done in place on b (triangular j < i loop,
 * values overwritten in memory).  b is dup: on entry d_b holds the seed for
 * the solution, on exit the adjoint of the original right-hand side.
 *
 * Forward mode (-DFORWARD_MODE): forward substitution L y = b
 * in place on b; L and b dup, the shadow of b ends as the solution's
 * tangent. */
#include "kernel_test.h"

__attribute__((noinline)) void trisolve(const double *L, double *b, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) b[i] -= L[i * n + j] * b[j];
    b[i] /= L[i * n + i];
  }
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { N = 6, NP = N * N + N };
/* p = L, b */
static void w_tri(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N * N, N * sizeof(double));
  trisolve(p, out, N);
}

int main(void) {
  double p[NP], v[NP], b[N], db[N], want[N];
  rng_seed(9);
  rng_fill(p, N * N, -0.5, 0.5);
  for (int i = 0; i < N; i++) {
    p[i * N + i] = 2.0 + i * 0.25;
    for (int j = i + 1; j < N; j++) p[i * N + j] = 0.0;
  }
  rng_fill(p + N * N, N, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  memcpy(b, p + N * N, sizeof b);
  memcpy(db, v + N * N, sizeof db);
  __enzyme_fwddiff((void *)trisolve, enzyme_dup, p, v, enzyme_dup, b, db, enzyme_const, N);
  fd_dir_vec(w_tri, p, v, NP, want, N, NULL);
  check_array("trisolve_db", db, want, N, 1e-6, 1e-8);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_trisolve(const double *L, double *dL, double *b, double *db, int n) {
  double v[64];
  trisolve(L, b, n); /* b now holds y */
  /* v = L^{-T} seed by back substitution */
  for (int i = n - 1; i >= 0; i--) {
    double s = db[i];
    for (int k = i + 1; k < n; k++) s -= L[k * n + i] * v[k];
    v[i] = s / L[i * n + i];
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) dL[i * n + j] += -v[i] * b[j];
    db[i] = v[i];
  }
}
#endif

static void grad_trisolve(const double *L, double *dL, double *b, double *db, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_trisolve(L, dL, b, db, n);
#else
  __enzyme_autodiff((void *)trisolve, enzyme_dup, L, dL, enzyme_dup, b, db, n);
#endif
}

enum { N = 6 };
static double Lbuf[N * N], bbuf[N], seed[N];

static double w_L(const double *L, void *ctx) {
  (void)ctx;
  double b[N], s = 0.0;
  memcpy(b, bbuf, sizeof b);
  trisolve(L, b, N);
  for (int i = 0; i < N; i++) s += seed[i] * b[i];
  return s;
}
static double w_b(const double *b0, void *ctx) {
  (void)ctx;
  double b[N], s = 0.0;
  memcpy(b, b0, sizeof b);
  trisolve(Lbuf, b, N);
  for (int i = 0; i < N; i++) s += seed[i] * b[i];
  return s;
}

int main(void) {
  double dL[N * N], b[N], db[N], fdL[N * N], fdb[N];
  rng_seed(9);
  rng_fill(Lbuf, N * N, -0.5, 0.5);
  for (int i = 0; i < N; i++) {
    Lbuf[i * N + i] = 2.0 + i * 0.25;
    for (int j = i + 1; j < N; j++) Lbuf[i * N + j] = 0.0;
  }
  rng_fill(bbuf, N, -1.0, 1.0);
  rng_fill(seed, N, -1.0, 1.0);
  memcpy(b, bbuf, sizeof b);
  memcpy(db, seed, sizeof db);
  zero_array(dL, N * N);
  grad_trisolve(Lbuf, dL, b, db, N);
  fd_grad_array(w_L, Lbuf, N * N, NULL, fdL);
  fd_grad_array(w_b, bbuf, N, NULL, fdb);
  check_array("trisolve_dL", dL, fdL, N * N, 1e-6, 1e-8);
  check_array("trisolve_db", db, fdb, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
