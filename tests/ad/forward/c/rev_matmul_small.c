/* Forward mode of tests/ad/c/matmul_small.c: C = A B (3x4 times 4x2) with
 * constant trip counts; A and B dup, the tangent lands in the shadow of C. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

#define MI 3
#define MK 4
#define MJ 2

__attribute__((noinline)) void matmul(const double *A, const double *B, double *C) {
  for (int i = 0; i < MI; i++)
    for (int j = 0; j < MJ; j++) {
      double s = 0.0;
      for (int k = 0; k < MK; k++) s += A[i * MK + k] * B[k * MJ + j];
      C[i * MJ + j] = s;
    }
}

enum { NA = MI * MK, NP = MI * MK + MK * MJ, NC = MI * MJ };
static void w_mm(const double *p, double *C, void *ctx) { (void)ctx; matmul(p, p + NA, C); }

int main(void) {
  double p[NP], v[NP], C[NC], dC[NC], want[NC];
  rng_seed(10);
  rng_fill(p, NP, -1.0, 1.0);
  rng_fill(v, NP, -1.0, 1.0);
  zero_array(dC, NC);
  __enzyme_fwddiff((void *)matmul, enzyme_dup, p, v, enzyme_dup, p + NA, v + NA, enzyme_dup, C,
                   dC);
  fd_dir_vec(w_mm, p, v, NP, want, NC, NULL);
  check_array("matmul_dC", dC, want, NC, 1e-6, 1e-8);
  return test_exit();
}
