/* Integer fields of a struct that also holds a pointer to active data, copied one by one
 * (`a->start = b->start` is a `load i64` / `store i64`): integers by their struct type, TBAA
 * or their use in arithmetic, not float bits (Enzyme's ReverseMode/mixedstruct1-simplefda.c). */
#include <stdlib.h>
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  long long start, end;
  double *data;
} Range;

double total(Range *r) {
  if (r->end - r->start > 1) {
    Range *head = malloc(sizeof(Range));
    Range *tail = malloc(sizeof(Range));
    head->data = r->data;
    head->start = r->start;
    head->end = r->start + 1;
    tail->data = r->data;
    tail->start = r->start + 1;
    tail->end = r->end;
    double s = 3.0 * head->data[head->start] + total(tail);
    free(head);
    free(tail);
    return s;
  }
  return r->data[r->start] * r->data[r->start];
}

int main(void) {
  double data[5] = {1, 2, 3, 4, 5}, d_data[5] = {0};
  Range r = {0, 5, data}, d_r = {0, 0, d_data};
  __enzyme_autodiff((void *)total, &r, &d_r);
  const double want[5] = {3, 3, 3, 3, 10};
  check_array("d data", d_data, want, 5, 1e-12, 0);
  return test_exit();
}
