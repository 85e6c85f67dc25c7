/* Structs of integers and a pointer to active data copied whole (`*a = *b`, a memcpy) by a
 * recursive function: the copy moves the pointer's shadow and no adjoint
 * (Enzyme's ReverseMode/mixedstruct1-sp.c). */
#include <stdlib.h>
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  long start, end;
  float *data;
} Frame;

float total(Frame *frame) {
  if (frame->end - frame->start > 2) {
    long mid = frame->start + (frame->end - frame->start) / 2;
    Frame *left = malloc(sizeof(Frame));
    Frame *right = malloc(sizeof(Frame));
    *left = *frame;
    *right = *frame;
    left->end = mid;
    right->start = mid;
    float s = total(left) + 2.0f * total(right);
    free(left);
    free(right);
    return s;
  }
  float s = 0;
  for (long i = frame->start; i < frame->end; i++) s += frame->data[i] * frame->data[i];
  return s;
}

int main(void) {
  float data[8], d_data[8];
  for (int i = 0; i < 8; i++) {
    data[i] = 0.5f + i;
    d_data[i] = 0;
  }
  Frame frame = {0, 8, data}, d_frame = {0, 0, d_data};
  __enzyme_autodiff((void *)total, &frame, &d_frame);
  /* [0,8) -> [0,4) + 2 [4,8) -> [0,2) + 2 [2,4) + 2 ([4,6) + 2 [6,8)) */
  const double weight[8] = {1, 1, 2, 2, 2, 2, 4, 4};
  for (int i = 0; i < 8; i++)
    check_close("d data", d_data[i], 2 * weight[i] * data[i], 1e-6, 1e-6);
  return test_exit();
}
