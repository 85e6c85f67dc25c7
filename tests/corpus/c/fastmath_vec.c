/* Per-function reassociation so -O2 emits vector reductions and shuffles. */
#include <stddef.h>

#pragma clang fp reassociate(on)

float sum_f32(const float *x, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; ++i)
        s += x[i];
    return s;
}

double sum_abs_f64(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += __builtin_fabs(x[i]);
    return s;
}

double prod_f64(const double *x, size_t n) {
    double p = 1.0;
    for (size_t i = 0; i < n; ++i)
        p *= x[i];
    return p;
}

double max_f64(const double *x, size_t n) {
    double m = x[0];
    for (size_t i = 1; i < n; ++i)
        m = __builtin_fmax(m, x[i]);
    return m;
}

int sum_i32(const int *x, size_t n) {
    int s = 0;
    for (size_t i = 0; i < n; ++i)
        s += x[i];
    return s;
}

unsigned xor_reduce(const unsigned *x, size_t n) {
    unsigned r = 0;
    for (size_t i = 0; i < n; ++i)
        r ^= x[i];
    return r;
}

double complex_norm_sq(const double *interleaved, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double re = interleaved[2 * i], im = interleaved[2 * i + 1];
        s += re * re + im * im;
    }
    return s;
}

void deinterleave(const double *restrict in, double *restrict re, double *restrict im,
                  size_t n) {
    for (size_t i = 0; i < n; ++i) {
        re[i] = in[2 * i];
        im[i] = in[2 * i + 1];
    }
}

typedef double v4d __attribute__((vector_size(32)));

v4d v4_fma(v4d a, v4d b, v4d c) { return a * b + c; }

v4d v4_reverse(v4d a) { return __builtin_shufflevector(a, a, 3, 2, 1, 0); }

double v4_hsum(v4d a) { return a[0] + a[1] + a[2] + a[3]; }
