// A linked list class with new / delete and a destructor (RAII), built inside
// the differentiated function from active values, traversed with a const
// method, destroyed when it goes out of scope.  No leak (mallinfo2).
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_autodiff(void *, ...);

class List {
  struct Node {
    double val;
    Node *next;
  };
  Node *head = nullptr;

 public:
  List() = default;
  List(const List &) = delete;
  List &operator=(const List &) = delete;
  ~List() {
    while (head) {
      Node *n = head->next;
      delete head;
      head = n;
    }
  }
  __attribute__((noinline)) void push(double v) { head = new Node{v, head}; }
  __attribute__((noinline)) double weighted(double decay) const {
    double s = 0.0, w = 1.0;
    for (const Node *p = head; p; p = p->next) {
      s += w * p->val;
      w *= decay;
    }
    return s;
  }
};

__attribute__((noinline)) double loss(const double *x, double decay, int n) {
  List l;
  for (int i = 0; i < n; i++) l.push(sin(x[i]) + x[i] * x[i]);
  double s = l.weighted(decay);
  return s * s;
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *x, double *dx, double decay, int n) {
  (void)loss(x, decay, n); // the primal allocates and frees, as the real gradient does
  double s = 0.0, ds_dd = 0.0;
  for (int i = n - 1, k = 0; i >= 0; i--, k++) {
    double v = sin(x[i]) + x[i] * x[i];
    s += pow(decay, k) * v;
    if (k > 0) ds_dd += k * pow(decay, k - 1) * v;
  }
  for (int i = n - 1, k = 0; i >= 0; i--, k++)
    dx[i] += 2.0 * s * pow(decay, k) * (cos(x[i]) + 2.0 * x[i]);
  return 2.0 * s * ds_dd;
}
#endif

static double grad_loss(const double *x, double *dx, double decay, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(x, dx, decay, n);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_out, decay, enzyme_const, n);
#endif
}

enum { N = 8 };
static double xs[N], d0 = 0.8;
static double w_x(const double *x, void *) { return loss(x, d0, N); }
static double w_d(double d, void *) { return loss(xs, d, N); }

int main() {
  double dx[N], fd[N];
  rng_seed(214);
  rng_fill(xs, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); // the malloc arena and its thread cache
  free(warm);                      // exist before heap0 is read
  size_t heap0 = mallinfo2().uordblks;
  double dd = grad_loss(xs, dx, d0, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("list_raii_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, xs, N, nullptr, fd);
  check_array("list_raii_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("list_raii_ddecay", dd, fd_deriv(w_d, d0, nullptr), 1e-6, 1e-9);
  return test_exit();
}
