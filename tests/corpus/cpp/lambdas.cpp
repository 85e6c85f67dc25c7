// Lambdas called directly, capturing, and passed to templates.
#include <cmath>
#include <cstddef>

template <typename F>
double integrate(F f, double a, double b, int n) {
    double h = (b - a) / n, s = 0.5 * (f(a) + f(b));
    for (int i = 1; i < n; ++i)
        s += f(a + i * h);
    return s * h;
}

template <typename F>
void transform(double *x, std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i)
        x[i] = f(x[i]);
}

template <typename F, typename G>
auto compose(F f, G g) {
    return [=](double x) { return f(g(x)); };
}

template <typename F>
double finite_diff(F f, double x, double h = 1e-6) { return (f(x + h) - f(x - h)) / (2 * h); }

double gaussian_integral(double sigma) {
    return integrate([sigma](double x) { return std::exp(-x * x / (2 * sigma * sigma)); }, -5.0,
                     5.0, 1000);
}

void shift_and_scale(double *x, std::size_t n, double shift, double scale) {
    transform(x, n, [&](double v) { return (v - shift) * scale; });
}

double direct_call(double x) {
    auto sq = [](double v) { return v * v; };
    auto add = [](double a, double b) { return a + b; };
    return add(sq(x), sq(x + 1.0));
}

double composed(double x) {
    auto f = compose([](double v) { return std::sin(v); }, [](double v) { return 2.0 * v; });
    return f(x) + finite_diff(f, x);
}

int count_if_greater(const double *x, int n, double thresh) {
    int count = 0;
    auto visit = [&count, thresh](double v) mutable {
        if (v > thresh)
            ++count;
    };
    for (int i = 0; i < n; ++i)
        visit(x[i]);
    return count;
}

double stateful_lambda(int n) {
    auto gen = [state = 1.0]() mutable {
        state = 0.5 * state + 1.0;
        return state;
    };
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += gen();
    return s;
}

double (*as_fnptr())(double) {
    return [](double x) { return x * x * x; };
}

double generic_lambda(int i, double d) {
    auto twice = [](auto v) { return v + v; };
    return twice(i) + twice(d);
}
