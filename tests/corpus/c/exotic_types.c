/* _Complex double, long double, __int128, _Float16. */
#include <complex.h>

double _Complex cmul_add(double _Complex a, double _Complex b, double _Complex c) {
    return a * b + c;
}

double _Complex cexp_poly(double _Complex z) {
    double _Complex term = 1.0, sum = 1.0;
    for (int k = 1; k < 12; ++k) {
        term *= z / k;
        sum += term;
    }
    return sum;
}

double cabs_sq(double _Complex z) { return creal(z) * creal(z) + cimag(z) * cimag(z); }

float _Complex cdivf(float _Complex a, float _Complex b) { return a / b; }

double _Complex dft_bin(const double *x, int n, int k) {
    double _Complex s = 0.0;
    for (int j = 0; j < n; ++j) {
        double ang = -6.283185307179586 * j * k / n;
        s += x[j] * (1.0 - ang * ang / 2.0 + I * (ang - ang * ang * ang / 6.0));
    }
    return s;
}

long double ld_sum(const long double *x, int n) {
    long double s = 0.0L;
    for (int i = 0; i < n; ++i)
        s += x[i];
    return s;
}

long double ld_compensated(const double *x, int n) {
    long double s = 0.0L;
    for (int i = 0; i < n; ++i)
        s += (long double)x[i] * x[i];
    return s;
}

__int128 mul_wide(long a, long b) { return (__int128)a * b; }

unsigned __int128 u128_fma(unsigned __int128 a, unsigned long b, unsigned long c) {
    return a * b + c;
}

unsigned long mulhi(unsigned long a, unsigned long b) {
    return (unsigned long)(((unsigned __int128)a * b) >> 64);
}

_Float16 h_axpy(_Float16 a, _Float16 x, _Float16 y) { return a * x + y; }

float h_dot(const _Float16 *x, const _Float16 *y, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += (float)x[i] * (float)y[i];
    return s;
}

void f32_to_f16(const float *in, _Float16 *out, int n) {
    for (int i = 0; i < n; ++i)
        out[i] = (_Float16)in[i];
}
