/* Pointers stored in memory: a dup struct holds the data pointers (its shadow
 * holds the shadows' pointers, as Enzyme users build it); the pointers loaded
 * from it lead to shadows loaded from the same place in the shadow struct. */
#include "fwd_test.h"

typedef struct {
  const double *x;
  double *y;
  int n;
} Problem;

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void run(const Problem *p) {
  for (int i = 0; i < p->n; i++) {
    double s = 0.0;
    for (int r = 0; r < 4; r++) s += sin(p->x[r * p->n + i]) * (r + 1);
    p->y[i] = s * s;
  }
}

enum { N = 9 };
static void w_run(const double *x, double *y, void *ctx) {
  (void)ctx;
  Problem p = {x, y, N};
  run(&p);
}

int main(void) {
  double x[4 * N], dx[4 * N], y[N], dy[N], want[N];
  rng_seed(53);
  rng_fill(x, 4 * N, -1.0, 1.0);
  rng_fill(dx, 4 * N, -1.0, 1.0);
  Problem p = {x, y, N}, dp = {dx, dy, N};
  __enzyme_fwddiff((void *)run, enzyme_dup, &p, &dp);
  fd_dir_vec(w_run, x, dx, 4 * N, want, N, NULL);
  check_array("struct_of_pointers", dy, want, N, 1e-7, 1e-9);
  return test_exit();
}
