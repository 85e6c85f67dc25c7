/* __enzyme_virtualreverse(f): f's shadow as Enzyme lays it out, a pointer to the pair
 * {augmented, reverse} with the split-mode ABI; called here by hand
 * (Enzyme's ReverseMode/virtualshadow2.cpp). */
#include "enzyme_test.h"

void *__enzyme_virtualreverse(void *);

typedef struct {
  void *tape;
  double result;
} TapeAndResult;

double cube(double x) { return x * x * x; }

void scale(double *p, double k) { p[0] = p[0] * p[0] * k; }

int main(void) {
  void **table = (void **)__enzyme_virtualreverse((void *)cube);
  TapeAndResult (*aug)(double) = (TapeAndResult(*)(double))table[0];
  double (*rev)(double, double, void *) = (double (*)(double, double, void *))table[1];
  TapeAndResult fwd = aug(1.5);
  check_close("cube primal", fwd.result, 3.375, 1e-15, 0);
  check_close("cube reverse", rev(1.5, 2.0, fwd.tape), 13.5, 1e-15, 0);
  check_close("same table", (double)(__enzyme_virtualreverse((void *)cube) == table), 1, 0, 0);

  void **t2 = (void **)__enzyme_virtualreverse((void *)scale);
  void *(*aug2)(double *, double *, double) = (void *(*)(double *, double *, double))t2[0];
  double (*rev2)(double *, double *, double, void *) =
      (double (*)(double *, double *, double, void *))t2[1];
  double p = 3.0, dp = 1.0;
  void *tape = aug2(&p, &dp, 0.5);
  check_close("scale primal", p, 4.5, 1e-15, 0);
  double dk = rev2(&p, &dp, 0.5, tape);
  check_close("scale d p", dp, 3.0, 1e-15, 0); /* d(p^2 k)/dp = 2 p k = 3 */
  check_close("scale d k", dk, 9.0, 1e-15, 0); /* d(p^2 k)/dk = p^2 = 9 */
  return test_exit();
}
