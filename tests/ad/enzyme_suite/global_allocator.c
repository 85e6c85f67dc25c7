/* Memory from an allocator called through a function pointer kept in a global that no code
 * writes (`tup.allocfn(size)`): the derivative calls the initial target, and would stop if
 * another file changed it (Enzyme's ReverseMode/metamalloc.c). */
#include <stdlib.h>
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

struct {
  int count;
  void *(*allocfn)(unsigned long);
} tup = {0, malloc};

__attribute__((noinline)) void *metamalloc(unsigned long size) { return tup.allocfn(size); }

__attribute__((noinline)) void cube(double *x) { *x = *x * *x * *x; }

double through_heap(double x) {
  double *mem = (double *)metamalloc(8);
  *mem = x;
  cube(mem);
  double r = mem[0];
  free(mem);
  return r;
}

int main(void) {
  check_close("primal", through_heap(1.5), 3.375, 1e-15, 0);
  check_close("gradient", __enzyme_autodiff((void *)through_heap, 1.5), 6.75, 1e-15, 0);
  return test_exit();
}
