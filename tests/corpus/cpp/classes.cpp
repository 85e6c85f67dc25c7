// Classes with methods, virtual functions and a small hierarchy of shapes/functions.
#include <cmath>

class Function1D {
public:
    virtual ~Function1D() = default;
    virtual double value(double x) const = 0;
    virtual double derivative(double x) const {
        const double h = 1e-6;
        return (value(x + h) - value(x - h)) / (2 * h);
    }
};

class Quadratic : public Function1D {
    double a_, b_, c_;

public:
    Quadratic(double a, double b, double c) : a_(a), b_(b), c_(c) {}
    double value(double x) const override { return (a_ * x + b_) * x + c_; }
    double derivative(double x) const override { return 2 * a_ * x + b_; }
};

class Sine : public Function1D {
    double freq_;

public:
    explicit Sine(double f) : freq_(f) {}
    double value(double x) const override { return std::sin(freq_ * x); }
};

class Scaled final : public Function1D {
    const Function1D &inner_;
    double scale_;

public:
    Scaled(const Function1D &f, double s) : inner_(f), scale_(s) {}
    double value(double x) const override { return scale_ * inner_.value(x); }
    double derivative(double x) const override { return scale_ * inner_.derivative(x); }
};

double newton_root(const Function1D &f, double x0, int iters) {
    double x = x0;
    for (int i = 0; i < iters; ++i)
        x -= f.value(x) / f.derivative(x);
    return x;
}

double sum_values(const Function1D *const *fs, int n, double x) {
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += fs[i]->value(x);
    return s;
}

class Accumulator {
    double sum_ = 0.0, comp_ = 0.0;
    long count_ = 0;

public:
    void add(double x) {
        double y = x - comp_;
        double t = sum_ + y;
        comp_ = (t - sum_) - y;
        sum_ = t;
        ++count_;
    }
    double mean() const { return count_ ? sum_ / count_ : 0.0; }
    long count() const { return count_; }
};

double kahan_mean(const double *x, int n) {
    Accumulator acc;
    for (int i = 0; i < n; ++i)
        acc.add(x[i]);
    return acc.mean();
}

double hierarchy_demo(double x) {
    Quadratic q(1.0, -3.0, 2.0);
    Sine s(2.0);
    Scaled sc(q, 0.5);
    const Function1D *fs[] = {&q, &s, &sc};
    return sum_values(fs, 3, x) + newton_root(q, 3.5, 20);
}

Function1D *make_function(int kind) {
    if (kind == 0)
        return new Quadratic(1, 0, -2);
    return new Sine(1.0);
}

double eval_and_destroy(Function1D *f, double x) {
    double v = f->value(x);
    delete f;
    return v;
}
