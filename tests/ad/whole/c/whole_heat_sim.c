/* A small whole program: explicit heat-equation time stepping on a rod.  The
 * simulation struct holds heap arrays (two temperature buffers swapped every
 * step, allocated and freed inside the differentiated function), the
 * conductivities are dup, the source term comes from a noinline callee with a
 * constant table, and the loss is a misfit at sensor positions. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct {
  double *cur, *next;
  int n;
} rod;

static const double source_shape[4] = {0.0, 0.5, 1.0, 0.5};

__attribute__((noinline)) double source(int i, double amp) { return amp * source_shape[i % 4]; }

__attribute__((noinline)) void step(rod *r, const double *kappa, double amp, double dt) {
  int n = r->n;
  for (int i = 0; i < n; i++) {
    double left = i > 0 ? r->cur[i - 1] : 0.0, right = i < n - 1 ? r->cur[i + 1] : 0.0;
    r->next[i] = r->cur[i] + dt * (kappa[i] * (left - 2.0 * r->cur[i] + right) + source(i, amp));
  }
  double *tmp = r->cur;
  r->cur = r->next;
  r->next = tmp;
}

__attribute__((noinline)) double loss(const double *kappa, double amp, const double *u0,
                                      const double *obs, int n, int steps) {
  rod r = {(double *)malloc(sizeof(double) * (size_t)n),
           (double *)malloc(sizeof(double) * (size_t)n), n};
  for (int i = 0; i < n; i++) r.cur[i] = u0[i];
  for (int s = 0; s < steps; s++) step(&r, kappa, amp, 0.1);
  double l = 0.0;
  for (int i = 1; i < n; i += 2) l += (r.cur[i] - obs[i]) * (r.cur[i] - obs[i]);
  free(r.cur);
  free(r.next);
  return l;
}

enum { N = 8, STEPS = 12 };

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *kappa, double *dkappa, double amp, const double *u0,
                            const double *obs, int n, int steps) {
  double u[STEPS + 1][N], g[N], gn[N], damp = 0.0, dt = 0.1;
  (void)loss(kappa, amp, u0, obs, n, steps); /* allocates and frees like the real gradient */
  for (int i = 0; i < n; i++) u[0][i] = u0[i];
  for (int s = 0; s < steps; s++)
    for (int i = 0; i < n; i++) {
      double left = i > 0 ? u[s][i - 1] : 0.0, right = i < n - 1 ? u[s][i + 1] : 0.0;
      u[s + 1][i] = u[s][i] + dt * (kappa[i] * (left - 2.0 * u[s][i] + right) +
                                    amp * source_shape[i % 4]);
    }
  for (int i = 0; i < n; i++) g[i] = (i % 2 == 1) ? 2.0 * (u[steps][i] - obs[i]) : 0.0;
  for (int s = steps - 1; s >= 0; s--) {
    for (int i = 0; i < n; i++) gn[i] = g[i];
    for (int i = 0; i < n; i++) {
      double left = i > 0 ? u[s][i - 1] : 0.0, right = i < n - 1 ? u[s][i + 1] : 0.0;
      dkappa[i] += g[i] * dt * (left - 2.0 * u[s][i] + right);
      damp += g[i] * dt * source_shape[i % 4];
      gn[i] += g[i] * dt * kappa[i] * (-2.0);
      if (i > 0) gn[i - 1] += g[i] * dt * kappa[i];
      if (i < n - 1) gn[i + 1] += g[i] * dt * kappa[i];
    }
    memcpy(g, gn, sizeof g);
  }
  return damp;
}
#endif

static double grad_loss(const double *kappa, double *dkappa, double amp, const double *u0,
                        const double *obs, int n, int steps) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(kappa, dkappa, amp, u0, obs, n, steps);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, kappa, dkappa, enzyme_out, amp,
                           enzyme_const, u0, enzyme_const, obs, enzyme_const, n, enzyme_const,
                           steps);
#endif
}

static double ks[N], u0s[N], obss[N], amp0 = 0.4;
static double w_k(const double *k, void *c) { (void)c; return loss(k, amp0, u0s, obss, N, STEPS); }
static double w_amp(double a, void *c) { (void)c; return loss(ks, a, u0s, obss, N, STEPS); }

int main(void) {
  double dk[N], fd[N];
  rng_seed(134);
  rng_fill(ks, N, 0.2, 0.9);
  rng_fill(u0s, N, 0.0, 1.0);
  rng_fill(obss, N, 0.0, 1.0);
  zero_array(dk, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  double damp = grad_loss(ks, dk, amp0, u0s, obss, N, STEPS);
  size_t heap1 = mallinfo2().uordblks;
  check_close("heat_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_k, ks, N, NULL, fd);
  check_array("heat_dkappa", dk, fd, N, 1e-6, 1e-9);
  check_close("heat_damp", damp, fd_deriv(w_amp, amp0, NULL), 1e-6, 1e-9);
  return test_exit();
}
