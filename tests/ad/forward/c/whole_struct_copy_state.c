/* Forward mode of tests/ad/whole/c/struct_copy_state.c: struct state copied by value through
 * a loop (a noinline step() takes the state by value and returns the next one, sret), a
 * pendulum with symplectic Euler; initial state and coefficients are both dup. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

typedef struct {
  double q, p, t, energy;
} state;
typedef struct {
  double k, gamma;
} coeffs;

__attribute__((noinline)) state step(state s, const coeffs *c, double h) {
  state r = s;
  r.p = s.p - h * (c->k * sin(s.q) + c->gamma * s.p);
  r.q = s.q + h * r.p;
  r.t = s.t + h;
  r.energy = 0.5 * r.p * r.p + c->k * (1.0 - cos(r.q));
  return r;
}
__attribute__((noinline)) double simulate(const state *init, const coeffs *c, int steps) {
  state s = *init;
  double acc = 0.0;
  for (int i = 0; i < steps; i++) {
    state nxt = step(s, c, 0.05);
    s = nxt;
    acc += s.energy * 0.05;
  }
  return acc + s.q * s.q;
}

enum { STEPS = 40 };
/* x = (q, p, k, gamma) */
static double w_all(const double *x, void *ctx) {
  (void)ctx;
  state s = {x[0], x[1], 0.0, 0.0};
  coeffs c = {x[2], x[3]};
  return simulate(&s, &c, STEPS);
}

int main(void) {
  state s0 = {0.9, -0.2, 0.0, 0.0};
  coeffs c0 = {2.5, 0.3};
  double x[4] = {s0.q, s0.p, c0.k, c0.gamma}, v[4];
  char name[64];
  rng_seed(121);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 4, -1.0, 1.0);
    state ds = {v[0], v[1], 0.0, 0.0};
    coeffs dc = {v[2], v[3]};
    double t = __enzyme_fwddiff((void *)simulate, enzyme_dup, &s0, &ds, enzyme_dup, &c0, &dc,
                                enzyme_const, STEPS);
    snprintf(name, sizeof name, "copy_state_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, x, v, 4, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
