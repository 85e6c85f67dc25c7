/* __enzyme_augmentfwd declared to return `struct { double x; void *tape; }`: the result is
 * found by type (Enzyme's ReverseMode/virtualshadow.cpp). */
#include "enzyme_test.h"

typedef struct {
  double x;
  void *tape;
} DoubleAndTape;

DoubleAndTape __enzyme_augmentfwd(void *, double);
double __enzyme_reverse(void *, double, double, void *);

double cube(double x) { return x * x * x; }

int main(void) {
  DoubleAndTape fwd = __enzyme_augmentfwd((void *)cube, 1.5);
  check_close("primal", fwd.x, 3.375, 1e-15, 0);
  check_close("reverse", __enzyme_reverse((void *)cube, 1.5, 2.0, fwd.tape), 13.5, 1e-15, 0);
  return test_exit();
}
