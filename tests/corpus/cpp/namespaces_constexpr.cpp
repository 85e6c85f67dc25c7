// Namespaces, nested namespaces, constexpr functions and constants.
#include <cstdint>

namespace physics {
constexpr double g = 9.80665;
constexpr double c = 299792458.0;

namespace kinematics {
constexpr double fall_distance(double t) { return 0.5 * g * t * t; }
double velocity(double v0, double a, double t) { return v0 + a * t; }
} // namespace kinematics

namespace relativity {
double gamma(double v) {
    double b = v / c;
    return 1.0 / __builtin_sqrt(1.0 - b * b);
}
} // namespace relativity
} // namespace physics

namespace numeric::util {
constexpr std::uint64_t factorial(unsigned n) { return n <= 1 ? 1 : n * factorial(n - 1); }

constexpr double ipow(double x, unsigned n) { return n == 0 ? 1.0 : x * ipow(x, n - 1); }

template <unsigned N>
struct Binomial {
    static constexpr std::uint64_t value = factorial(N) / (factorial(N / 2) * factorial(N - N / 2));
};

constexpr int table_size = 10;
} // namespace numeric::util

namespace {
double hidden_helper(double x) { return x * 0.5; }
} // namespace

using namespace physics;

double drop_time_check() {
    constexpr double d = kinematics::fall_distance(2.0);
    static_assert(d > 19.0 && d < 20.0, "sanity");
    return d + hidden_helper(kinematics::velocity(0.0, g, 1.0));
}

double lorentz(double v) { return relativity::gamma(v); }

std::uint64_t fact_runtime(unsigned n) { return numeric::util::factorial(n); }

std::uint64_t binom10() { return numeric::util::Binomial<10>::value; }

double taylor_exp(double x) {
    namespace nu = numeric::util;
    double s = 0.0;
    for (unsigned k = 0; k < nu::table_size; ++k)
        s += nu::ipow(x, k) / static_cast<double>(nu::factorial(k));
    return s;
}

const double *constants_table() {
    static constexpr double table[] = {physics::g, physics::c, numeric::util::ipow(2.0, 10)};
    return table;
}
