// std:: math functions from <cmath> in scalar and loop form.
#include <cmath>
#include <cstddef>

double std_gaussian(double x, double sigma) {
    return std::exp(-x * x / (2.0 * sigma * sigma)) / (sigma * std::sqrt(2.0 * M_PI));
}

float std_sqrtf(float x) { return std::sqrt(x); }

double std_norm(const double *x, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        s += x[i] * x[i];
    return std::sqrt(s);
}

void std_softplus(const double *x, double *y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        y[i] = std::log1p(std::exp(x[i]));
}

double std_angle(double x, double y) { return std::atan2(y, x) + std::hypot(x, y); }

double std_misc(double x) {
    return std::pow(x, 2.5) + std::tanh(x) + std::erf(x) + std::fabs(x) + std::fmax(x, 0.0) +
           std::cos(x) * std::sin(x) + std::log(std::abs(x) + 1.0);
}

float std_floats(float x) { return std::sin(x) + std::exp(x) + std::pow(x, 3.0f); }

double std_lgamma_ratio(double a, double b) { return std::exp(std::lgamma(a) - std::lgamma(b)); }

bool std_is_bad(double x) { return std::isnan(x) || std::isinf(x); }

double std_round_trip(double x) {
    int e;
    double m = std::frexp(x, &e);
    return std::ldexp(m, e) + std::nearbyint(x) + std::remainder(x, 2.0);
}

long double std_long_exp(long double x) { return std::exp(x); }
