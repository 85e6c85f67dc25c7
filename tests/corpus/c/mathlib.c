/* Calls into libm in double and float precision. */
#include <math.h>

double gaussian_pdf(double x, double mu, double sigma) {
    double z = (x - mu) / sigma;
    return exp(-0.5 * z * z) / (sigma * sqrt(2.0 * 3.141592653589793));
}

double normal_cdf(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }

double softplus(double x) { return log(1.0 + exp(x)); }

double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

void polar_to_cart(double r, double theta, double *x, double *y) {
    *x = r * cos(theta);
    *y = r * sin(theta);
}

void cart_to_polar(double x, double y, double *r, double *theta) {
    *r = hypot(x, y);
    *theta = atan2(y, x);
}

double power_law(double x, double a, double b) { return a * pow(fabs(x), b); }

double safe_log_ratio(double a, double b) { return log(fmax(a, 1e-300)) - log(fmax(b, 1e-300)); }

float sinc_f(float x) {
    if (fabsf(x) < 1e-6f)
        return 1.0f;
    return sinf(x) / x;
}

float rotate_angle_f(float a, float b) { return cosf(a) * sinf(b) + expf(-a * b); }

double fmin_fmax_clip(double x, double lo, double hi) { return fmin(fmax(x, lo), hi); }

double log_sum_exp(const double *x, int n) {
    double m = -INFINITY;
    for (int i = 0; i < n; ++i)
        m = fmax(m, x[i]);
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += exp(x[i] - m);
    return m + log(s);
}

double misc_math(double x) {
    return cbrt(x) + floor(x) + ceil(x) + round(x) + trunc(x) + fmod(x, 3.0) + log1p(x) +
           expm1(x) + log2(fabs(x) + 1.0) + log10(fabs(x) + 1.0) + asin(x / 10.0) +
           acos(x / 10.0) + atan(x) + sinh(x) + cosh(x) + copysign(1.0, x);
}

void vec_sqrt(int n, const double *restrict in, double *restrict out) {
    for (int i = 0; i < n; ++i)
        out[i] = sqrt(in[i]);
}

void vec_fabs(int n, float *x) {
    for (int i = 0; i < n; ++i)
        x[i] = fabsf(x[i]);
}

double fma_chain(double a, double b, double c) { return fma(a, b, fma(b, c, a)); }
