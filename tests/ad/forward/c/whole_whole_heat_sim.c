/* Forward mode of tests/ad/whole/c/whole_heat_sim.c: explicit heat-equation time stepping on
 * a rod whose struct holds two heap buffers swapped every step (allocated and freed inside
 * the differentiated function); conductivities and source amplitude vary; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

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
static double u0s[N], obss[N];
/* x = (kappa, amp) */
static double w_all(const double *x, void *c) {
  (void)c;
  return loss(x, x[N], u0s, obss, N, STEPS);
}

int main(void) {
  double x[N + 1], v[N + 1];
  char name[64];
  rng_seed(134);
  rng_fill(x, N, 0.2, 0.9);
  rng_fill(u0s, N, 0.0, 1.0);
  rng_fill(obss, N, 0.0, 1.0);
  x[N] = 0.4;
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_dup, x[N], v[N],
                                enzyme_const, u0s, enzyme_const, obss, enzyme_const, N,
                                enzyme_const, STEPS);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "heat_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "heat_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, x, v, N + 1, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
