/* BLAS-1 style vectorizable loops. */
#include <stddef.h>

void saxpy(int n, float a, const float *restrict x, float *restrict y) {
    for (int i = 0; i < n; ++i)
        y[i] = a * x[i] + y[i];
}

void daxpy(size_t n, double a, const double *restrict x, double *restrict y) {
    for (size_t i = 0; i < n; ++i)
        y[i] += a * x[i];
}

void dscal(size_t n, double a, double *x) {
    for (size_t i = 0; i < n; ++i)
        x[i] *= a;
}

void dcopy_rev(size_t n, const double *restrict x, double *restrict y) {
    for (size_t i = 0; i < n; ++i)
        y[i] = x[n - 1 - i];
}

void daxpby(size_t n, double a, const double *restrict x, double b, double *restrict y) {
    for (size_t i = 0; i < n; ++i)
        y[i] = a * x[i] + b * y[i];
}

void vclamp(size_t n, double *x, double lo, double hi) {
    for (size_t i = 0; i < n; ++i) {
        double v = x[i];
        v = v < lo ? lo : v;
        x[i] = v > hi ? hi : v;
    }
}

void interleave(size_t n, const double *restrict re, const double *restrict im,
                double *restrict out) {
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = re[i];
        out[2 * i + 1] = im[i];
    }
}

void int_to_double(size_t n, const int *restrict in, double *restrict out) {
    for (size_t i = 0; i < n; ++i)
        out[i] = (double)in[i] * 0.5;
}

void relu(size_t n, float *x) {
    for (size_t i = 0; i < n; ++i)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
