/* Small matrix-matrix product C = A B (3x4 times 4x2) into an output array,
 * with constant trip counts; A, B, C dup, seed in d_C.
 *
 * Forward mode (-DFORWARD_MODE): C = A B (3x4 times 4x2) with
 * constant trip counts; A and B dup, the tangent lands in the shadow of C. */
#include "kernel_test.h"

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

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_matmul(const double *A, double *dA, const double *B, double *dB,
                            double *C, double *dC) {
  matmul(A, B, C);
  for (int i = 0; i < MI; i++)
    for (int j = 0; j < MJ; j++) {
      for (int k = 0; k < MK; k++) {
        dA[i * MK + k] += dC[i * MJ + j] * B[k * MJ + j];
        dB[k * MJ + j] += A[i * MK + k] * dC[i * MJ + j];
      }
      dC[i * MJ + j] = 0.0;
    }
}
#endif

static void grad_matmul(const double *A, double *dA, const double *B, double *dB,
                        double *C, double *dC) {
#ifdef REFERENCE_GRADIENT
  ref_grad_matmul(A, dA, B, dB, C, dC);
#else
  __enzyme_autodiff((void *)matmul, enzyme_dup, A, dA, enzyme_dup, B, dB, enzyme_dup, C, dC);
#endif
}

static double Ab[MI * MK], Bb[MK * MJ], seed[MI * MJ];
static double seeded(const double *A, const double *B) {
  double C[MI * MJ], s = 0.0;
  matmul(A, B, C);
  for (int i = 0; i < MI * MJ; i++) s += seed[i] * C[i];
  return s;
}
static double w_A(const double *A, void *ctx) { (void)ctx; return seeded(A, Bb); }
static double w_B(const double *B, void *ctx) { (void)ctx; return seeded(Ab, B); }

int main(void) {
  double dA[MI * MK], dB[MK * MJ], C[MI * MJ], dC[MI * MJ];
  double fdA[MI * MK], fdB[MK * MJ], zeros[MI * MJ];
  rng_seed(10);
  rng_fill(Ab, MI * MK, -1.0, 1.0);
  rng_fill(Bb, MK * MJ, -1.0, 1.0);
  rng_fill(seed, MI * MJ, -1.0, 1.0);
  zero_array(dA, MI * MK);
  zero_array(dB, MK * MJ);
  zero_array(zeros, MI * MJ);
  memcpy(dC, seed, sizeof dC);
  grad_matmul(Ab, dA, Bb, dB, C, dC);
  fd_grad_array(w_A, Ab, MI * MK, NULL, fdA);
  fd_grad_array(w_B, Bb, MK * MJ, NULL, fdB);
  check_array("matmul_dA", dA, fdA, MI * MK, 1e-6, 1e-8);
  check_array("matmul_dB", dB, fdB, MK * MJ, 1e-6, 1e-8);
  check_array("matmul_dC_zeroed", dC, zeros, MI * MJ, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
