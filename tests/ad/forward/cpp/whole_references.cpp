// Forward mode of tests/ad/whole/cpp/references.cpp: the differentiated function takes
// double & (updated in place), const double & and a const reference to a struct; noinline
// helpers take references too.  The tangent of acc is updated in place as well.
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

struct Pair {
  double lo, hi;
};

__attribute__((noinline)) void blend(double &acc, const double &v, const Pair &p) {
  acc = acc * p.lo + sin(v) * p.hi;
}
__attribute__((noinline)) double loss(double &acc, const double &k, const Pair &p,
                                      const double *x, int n) {
  for (int i = 0; i < n; i++) {
    double v = k * x[i];
    blend(acc, v, p);
  }
  return acc * acc;
}

enum { N = 7 };
static double xs[N];
static double w_all(const double *v, void *) {
  double acc = v[0], k = v[1];
  Pair p{v[2], v[3]};
  return loss(acc, k, p, xs, N);
}
static void w_acc(const double *v, double *out, void *) {
  double k = v[1];
  Pair p{v[2], v[3]};
  out[0] = v[0];
  loss(out[0], k, p, xs, N);
}

int main() {
  double z[4] = {0.4, 1.3, 0.7, 0.9}, v[4], fd[1];
  char name[64];
  rng_seed(202);
  rng_fill(xs, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 4, -1.0, 1.0);
    double acc = z[0], k = z[1], dacc = v[0], dk = v[1];
    Pair p{z[2], z[3]}, dp{v[2], v[3]};
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &acc, &dacc, enzyme_dup, &k, &dk,
                                enzyme_dup, &p, &dp, enzyme_const, xs, enzyme_const, N);
    snprintf(name, sizeof name, "references_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, 4, nullptr), 1e-6, 1e-9);
    fd_dir_vec(w_acc, z, v, 4, fd, 1, nullptr);
    snprintf(name, sizeof name, "references_dacc_%d", d);
    check_close(name, dacc, fd[0], 1e-6, 1e-9);
  }
  return test_exit();
}
