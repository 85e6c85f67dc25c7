/* Shared helpers for the self-checking Enzyme C-ABI test programs.
 *
 * Every program differentiates one or more functions with __enzyme_autodiff
 * (or, under -DREFERENCE_GRADIENT, with a hand-written analytic gradient that
 * has the same effect), compares the result with central finite differences of
 * the primal, prints one "PASS name" / "FAIL name ..." line per check and
 * returns test_exit() from main.
 *
 * Everything here is static so that unused helpers are not emitted and the
 * differentiated functions never call into this file.
 */
#ifndef ENZYME_TEST_H
#define ENZYME_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out;

#define ET_HELPER static __attribute__((unused))

/* ---------------------------------------------------------------- checks */

ET_HELPER int et_failures = 0;
ET_HELPER int et_checks = 0;

ET_HELPER int et_close(double got, double want, double rtol, double atol) {
  if (!(got == got) || !(want == want)) return 0; /* NaN */
  return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Prints "PASS name" or "FAIL name got=... want=..."; returns 1 on success. */
ET_HELPER int check_close(const char *name, double got, double want, double rtol,
                       double atol) {
  et_checks++;
  if (et_close(got, want, rtol, atol)) {
    printf("PASS %s\n", name);
    return 1;
  }
  et_failures++;
  printf("FAIL %s got=%.17g want=%.17g\n", name, got, want);
  return 0;
}

/* One PASS/FAIL line for a whole array; a FAIL names the first bad index. */
ET_HELPER int check_array(const char *name, const double *got, const double *want,
                       int n, double rtol, double atol) {
  et_checks++;
  for (int i = 0; i < n; i++) {
    if (!et_close(got[i], want[i], rtol, atol)) {
      et_failures++;
      printf("FAIL %s[%d] got=%.17g want=%.17g\n", name, i, got[i], want[i]);
      return 0;
    }
  }
  printf("PASS %s\n", name);
  return 1;
}

ET_HELPER int check_array_f(const char *name, const float *got, const double *want,
                         int n, double rtol, double atol) {
  et_checks++;
  for (int i = 0; i < n; i++) {
    if (!et_close((double)got[i], want[i], rtol, atol)) {
      et_failures++;
      printf("FAIL %s[%d] got=%.9g want=%.9g\n", name, i, (double)got[i],
             want[i]);
      return 0;
    }
  }
  printf("PASS %s\n", name);
  return 1;
}

/* Exit status for main: non-zero when any check failed (or none ran). */
ET_HELPER int test_exit(void) {
  fprintf(stderr, "# %d checks, %d failed\n", et_checks, et_failures);
  if (et_checks == 0) return 2;
  return et_failures != 0;
}

/* ------------------------------------------------------ deterministic RNG */

ET_HELPER uint64_t et_rng_state = 0x853c49e6748fea9bULL;

ET_HELPER void rng_seed(uint64_t seed) { et_rng_state = seed * 0x9e3779b97f4a7c15ULL + 1; }

/* splitmix64 */
ET_HELPER uint64_t rng_next(void) {
  uint64_t z = (et_rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
ET_HELPER double rng_uniform(double lo, double hi) {
  return lo + (hi - lo) * ((double)(rng_next() >> 11) * 0x1.0p-53);
}

ET_HELPER void rng_fill(double *a, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) a[i] = rng_uniform(lo, hi);
}

ET_HELPER void rng_fill_f(float *a, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) a[i] = (float)rng_uniform(lo, hi);
}

ET_HELPER void zero_array(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = 0.0;
}

ET_HELPER void zero_array_f(float *a, int n) {
  for (int i = 0; i < n; i++) a[i] = 0.0f;
}

/* --------------------------------------------------- finite differences */

#define ET_FD_MAX 1024

/* Central-difference step for double inputs. */
ET_HELPER double fd_step(double x) { return 1e-6 * (fabs(x) > 1.0 ? fabs(x) : 1.0); }

/* Central-difference step for float inputs (float rounding needs a larger h). */
ET_HELPER double fd_step_f(double x) { return 1e-3 * (fabs(x) > 1.0 ? fabs(x) : 1.0); }

/* d/dx f(x, ctx) for a scalar input. */
ET_HELPER double fd_deriv(double (*f)(double, void *), double x, void *ctx) {
  volatile double xp = x + fd_step(x), xm = x - fd_step(x);
  return (f(xp, ctx) - f(xm, ctx)) / (xp - xm);
}

/* Gradient of a scalar function of an array: grad[i] = d f(x, ctx) / d x[i].
 * f gets a private copy of x and may overwrite it. */
typedef double (*fd_array_fn)(const double *x, void *ctx);

ET_HELPER void fd_grad_array(fd_array_fn f, const double *x, int n, void *ctx,
                          double *grad) {
  double xx[ET_FD_MAX], tmp[ET_FD_MAX];
  if (n > ET_FD_MAX) {
    printf("FAIL fd_grad_array n=%d too large\n", n);
    et_failures++;
    return;
  }
  memcpy(xx, x, sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    double h = fd_step(x[i]);
    volatile double xp = x[i] + h, xm = x[i] - h;
    xx[i] = xp;
    memcpy(tmp, xx, sizeof(double) * (size_t)n);
    double fp = f(tmp, ctx);
    xx[i] = xm;
    memcpy(tmp, xx, sizeof(double) * (size_t)n);
    double fm = f(tmp, ctx);
    xx[i] = x[i];
    grad[i] = (fp - fm) / (xp - xm);
  }
}

/* Float version: f evaluates in float; the difference quotient is taken in double. */
typedef float (*fd_array_fn_f)(const float *x, void *ctx);

ET_HELPER void fd_grad_array_f(fd_array_fn_f f, const float *x, int n, void *ctx,
                            double *grad) {
  float xx[ET_FD_MAX], tmp[ET_FD_MAX];
  if (n > ET_FD_MAX) {
    printf("FAIL fd_grad_array_f n=%d too large\n", n);
    et_failures++;
    return;
  }
  memcpy(xx, x, sizeof(float) * (size_t)n);
  for (int i = 0; i < n; i++) {
    double h = fd_step_f(x[i]);
    volatile float xp = (float)(x[i] + h), xm = (float)(x[i] - h);
    xx[i] = xp;
    memcpy(tmp, xx, sizeof(float) * (size_t)n);
    double fp = f(tmp, ctx);
    xx[i] = xm;
    memcpy(tmp, xx, sizeof(float) * (size_t)n);
    double fm = f(tmp, ctx);
    xx[i] = x[i];
    grad[i] = (fp - fm) / ((double)xp - (double)xm);
  }
}

#endif /* ENZYME_TEST_H */
