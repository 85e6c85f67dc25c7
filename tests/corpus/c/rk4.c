/* Classical Runge-Kutta integrators with callback right-hand sides. */
#include <math.h>

typedef void (*rhs_fn)(double t, const double *y, double *dydt, void *ctx);

void rk4_step(rhs_fn f, double t, double h, int n, double *y, double *work, void *ctx) {
    double *k1 = work, *k2 = work + n, *k3 = work + 2 * n, *k4 = work + 3 * n;
    double *tmp = work + 4 * n;
    f(t, y, k1, ctx);
    for (int i = 0; i < n; ++i)
        tmp[i] = y[i] + 0.5 * h * k1[i];
    f(t + 0.5 * h, tmp, k2, ctx);
    for (int i = 0; i < n; ++i)
        tmp[i] = y[i] + 0.5 * h * k2[i];
    f(t + 0.5 * h, tmp, k3, ctx);
    for (int i = 0; i < n; ++i)
        tmp[i] = y[i] + h * k3[i];
    f(t + h, tmp, k4, ctx);
    for (int i = 0; i < n; ++i)
        y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

struct oscillator {
    double omega;
    double damping;
};

void oscillator_rhs(double t, const double *y, double *dydt, void *ctx) {
    const struct oscillator *o = ctx;
    (void)t;
    dydt[0] = y[1];
    dydt[1] = -o->omega * o->omega * y[0] - 2.0 * o->damping * y[1];
}

void lorenz_rhs(double t, const double *y, double *dydt, void *ctx) {
    (void)t;
    (void)ctx;
    dydt[0] = 10.0 * (y[1] - y[0]);
    dydt[1] = y[0] * (28.0 - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - 8.0 / 3.0 * y[2];
}

double scalar_rk4(double (*f)(double, double), double t0, double y0, double h, int steps) {
    double t = t0, y = y0;
    for (int s = 0; s < steps; ++s) {
        double a = f(t, y);
        double b = f(t + 0.5 * h, y + 0.5 * h * a);
        double c = f(t + 0.5 * h, y + 0.5 * h * b);
        double d = f(t + h, y + h * c);
        y += h * (a + 2.0 * b + 2.0 * c + d) / 6.0;
        t += h;
    }
    return y;
}

double logistic(double t, double y) {
    (void)t;
    return y * (1.0 - y);
}

double decay_rhs(double t, double y) { return -y * exp(-0.1 * t); }

double integrate_oscillator(double omega, double h, int steps) {
    struct oscillator o = {omega, 0.05};
    double y[2] = {1.0, 0.0};
    double work[10];
    for (int s = 0; s < steps; ++s)
        rk4_step(oscillator_rhs, s * h, h, 2, y, work, &o);
    return y[0];
}
