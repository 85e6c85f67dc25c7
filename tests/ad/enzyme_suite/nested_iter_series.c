/* Third derivative by nesting __enzyme_autodiff three deep over a truncated series whose
 * length is __enzyme_iter(8, 1): each derivative adds a term, so the nth derivative of the
 * series is the series itself; each level differentiates the inlined gradient below it,
 * tapes and all (Enzyme's ReverseMode/mycos.c). */
#include <math.h>
#include "enzyme_test.h"

double __enzyme_autodiff(void *, double);
unsigned long long __enzyme_iter(unsigned long long, unsigned long long);

__attribute__((noinline)) unsigned long long factorial(unsigned long long x) {
  return x == 0 ? 1 : x * factorial(x - 1);
}

double series(double x, unsigned long long n) {
  double s = 0;
  for (unsigned long long i = 0; i <= n; i++) s += pow(x, i) / factorial(i);
  return s;
}

double my_exp(double x) {
  double s = 0;
  unsigned long long n = __enzyme_iter(8, 1);
  for (unsigned long long i = 0; i <= n; i++) s += pow(x, i) / factorial(i);
  return s;
}

double d1(double x) { return __enzyme_autodiff((void *)my_exp, x); }
double d2(double x) { return __enzyme_autodiff((void *)d1, x); }
double d3(double x) { return __enzyme_autodiff((void *)d2, x); }

int main(void) {
  const double xs[] = {0.3, 1.23, -0.8};
  for (int i = 0; i < 3; i++) {
    double x = xs[i], want = series(x, 8);
    check_close("primal", my_exp(x), want, 1e-14, 0);
    check_close("d1", d1(x), want, 1e-13, 0);
    check_close("d2", d2(x), want, 1e-13, 0);
    check_close("d3", d3(x), want, 1e-13, 0);
  }
  return test_exit();
}
