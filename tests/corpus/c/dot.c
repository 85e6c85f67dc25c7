/* Dot products and reductions in float and double. */
#include <stddef.h>

double ddot(const double *x, const double *y, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

float sdot(const float *x, const float *y, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

/* Reassociation allowed: -O2 emits <4 x double> and llvm.vector.reduce.fadd. */
double ddot_fast(const double *x, const double *y, size_t n) {
#pragma clang fp reassociate(on)
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

float ssum_fast(const float *x, int n) {
#pragma clang fp reassociate(on)
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += x[i];
    return s;
}

double dnrm2_sq(const double *x, size_t n) {
#pragma clang fp reassociate(on)
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += x[i] * x[i];
    return s;
}

long isum(const int *x, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i)
        s += x[i];
    return s;
}

int imax_reduce(const int *x, int n) {
    int m = x[0];
    for (int i = 1; i < n; ++i)
        m = x[i] > m ? x[i] : m;
    return m;
}

double dmax_abs(const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        double a = x[i] < 0 ? -x[i] : x[i];
        if (a > m)
            m = a;
    }
    return m;
}

double mean_variance(const double *x, int n, double *var_out) {
    double mean = 0.0, m2 = 0.0;
    for (int i = 0; i < n; ++i) {
        double delta = x[i] - mean;
        mean += delta / (double)(i + 1);
        m2 += delta * (x[i] - mean);
    }
    *var_out = n > 1 ? m2 / (double)(n - 1) : 0.0;
    return mean;
}
