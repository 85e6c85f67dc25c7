/* Forward mode of tests/ad/whole/c/struct_array_particles.c: an array of particle structs
 * with a pairwise soft potential (noinline callee taking two struct pointers) and kinetic
 * energy; the shadow is a particle array holding the direction. */
#include "fwd_test.h"
#include <string.h>

double __enzyme_fwddiff(void *, ...);

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

enum { N = 5, F = 5 };
static double w_p(const double *flat, void *c) {
  (void)c;
  particle p[N];
  memcpy(p, flat, sizeof p);
  return energy(p, N);
}

int main(void) {
  particle p[N], dp[N];
  char name[64];
  rng_seed(117);
  rng_fill((double *)p, N * F, 0.2, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill((double *)dp, N * F, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)energy, enzyme_dup, p, dp, enzyme_const, N);
    snprintf(name, sizeof name, "particles_jvp_%d", d);
    check_close(name, t, fd_dir(w_p, (const double *)p, (const double *)dp, N * F, NULL), 1e-6,
                1e-9);
  }
  return test_exit();
}
