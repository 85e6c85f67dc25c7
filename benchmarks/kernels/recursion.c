/* Divide-and-conquer recursions that LLVM cannot turn into loops: a recursive in-place
 * update of x (each half scaled a little differently) and a recursive weighted sum.
 * Both stay calls, so their gradient goes through augmented forward functions that return
 * a tape per call, and reverse functions that consume it.  Gradient w.r.t. x (dup; the
 * kernel overwrites it). */
#include <math.h>

static void update(double *x, int lo, int hi, double a) {
  if (hi - lo <= 16) {
    for (int i = lo; i < hi; i++) x[i] = sin(x[i] * a);
    return;
  }
  int mid = lo + (hi - lo) / 2;
  update(x, lo, mid, a);
  update(x, mid, hi, a * 1.0001);
}

static double wsum(const double *x, int lo, int hi) {
  if (hi - lo <= 16) {
    double s = 0.0;
    for (int i = lo; i < hi; i++) s += x[i] * x[i] * (1.0 + 0.001 * i);
    return s;
  }
  int mid = lo + (hi - lo) / 2;
  return 0.999 * wsum(x, lo, mid) + wsum(x, mid, hi);
}

double rec_energy(double *x, int n) {
  update(x, 0, n, 1.1);
  return wsum(x, 0, n);
}
