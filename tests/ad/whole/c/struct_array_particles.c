/* An array of structs passed by pointer: particles {x, y, vx, vy, m} with a
 * pairwise soft potential computed by a noinline callee taking two struct
 * pointers, plus kinetic energy.  The gradient is a shadow particle array. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double x, y, vx, vy, m;
} particle;

__attribute__((noinline)) double pair_energy(const particle *a, const particle *b) {
  double dx = a->x - b->x, dy = a->y - b->y;
  return a->m * b->m / sqrt(dx * dx + dy * dy + 0.1);
}
__attribute__((noinline)) double kinetic(const particle *p) {
  return 0.5 * p->m * (p->vx * p->vx + p->vy * p->vy);
}
__attribute__((noinline)) double energy(const particle *p, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    e += kinetic(&p[i]);
    for (int j = i + 1; j < n; j++) e -= pair_energy(&p[i], &p[j]);
  }
  return e;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_energy(const particle *p, particle *dp, int n) {
  for (int i = 0; i < n; i++) {
    double v2 = p[i].vx * p[i].vx + p[i].vy * p[i].vy;
    dp[i].m += 0.5 * v2;
    dp[i].vx += p[i].m * p[i].vx;
    dp[i].vy += p[i].m * p[i].vy;
    for (int j = i + 1; j < n; j++) {
      double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
      double r = sqrt(dx * dx + dy * dy + 0.1);
      double e = p[i].m * p[j].m / r;
      double de_dr2 = -0.5 * e / (r * r); /* d e / d (r^2) */
      /* energy -= e */
      dp[i].m -= p[j].m / r;
      dp[j].m -= p[i].m / r;
      dp[i].x -= de_dr2 * 2.0 * dx;
      dp[j].x += de_dr2 * 2.0 * dx;
      dp[i].y -= de_dr2 * 2.0 * dy;
      dp[j].y += de_dr2 * 2.0 * dy;
    }
  }
}
#endif

static void grad_energy(const particle *p, particle *dp, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_energy(p, dp, n);
#else
  __enzyme_autodiff((void *)energy, enzyme_dup, p, dp, enzyme_const, n);
#endif
}

enum { N = 5, F = 5 };
static double w_p(const double *flat, void *c) {
  (void)c;
  particle p[N];
  memcpy(p, flat, sizeof p);
  return energy(p, N);
}

int main(void) {
  particle p[N], dp[N];
  double fd[N * F];
  rng_seed(117);
  rng_fill((double *)p, N * F, 0.2, 1.5);
  memset(dp, 0, sizeof dp);
  grad_energy(p, dp, N);
  fd_grad_array(w_p, (const double *)p, N * F, NULL, fd);
  check_array("particles_dp", (const double *)dp, fd, N * F, 1e-6, 1e-9);
  return test_exit();
}
