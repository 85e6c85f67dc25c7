// Compiled WITH exceptions: try/catch/throw, invoke, landingpad, resume.
#include <cmath>
#include <stdexcept>
#include <vector>

struct SolverError : std::runtime_error {
    int iterations;
    SolverError(const char *msg, int it) : std::runtime_error(msg), iterations(it) {}
};

double checked_sqrt(double x) {
    if (x < 0)
        throw std::domain_error("negative argument to sqrt");
    return std::sqrt(x);
}

double safe_sqrt(double x) {
    try {
        return checked_sqrt(x);
    } catch (const std::domain_error &) {
        return 0.0;
    }
}

double newton(double (*f)(double), double (*df)(double), double x, int max_iter) {
    for (int i = 0; i < max_iter; ++i) {
        double d = df(x);
        if (d == 0.0)
            throw SolverError("zero derivative", i);
        double step = f(x) / d;
        x -= step;
        if (std::fabs(step) < 1e-12)
            return x;
    }
    throw SolverError("no convergence", max_iter);
}

int solve_or_report(double (*f)(double), double (*df)(double), double x0, double *out) {
    try {
        *out = newton(f, df, x0, 50);
        return 0;
    } catch (const SolverError &e) {
        *out = NAN;
        return -e.iterations - 1;
    } catch (...) {
        return -1000;
    }
}

struct Guard {
    int *counter;
    explicit Guard(int *c) : counter(c) { ++*counter; }
    ~Guard() { --*counter; }
};

double guarded_sum(const std::vector<double> &xs, int *live) {
    Guard g(live);
    double s = 0.0;
    for (double x : xs)
        s += checked_sqrt(x);
    return s;
}

double collect_roots(const double *xs, int n) {
    std::vector<double> roots;
    for (int i = 0; i < n; ++i) {
        try {
            roots.push_back(checked_sqrt(xs[i]));
        } catch (const std::exception &e) {
            roots.push_back(-1.0);
        }
    }
    double s = 0.0;
    for (double r : roots)
        s += r;
    return s;
}

void rethrow_with_context(int stage) {
    try {
        if (stage > 2)
            throw std::out_of_range("stage");
    } catch (...) {
        throw;
    }
}

double noexcept_wrapper(double x) noexcept { return x > 0 ? std::log(x) : 0.0; }
