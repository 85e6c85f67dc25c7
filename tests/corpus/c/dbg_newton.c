/* Compiled with -g: debug records (#dbg_value / #dbg_declare) and DI metadata. */
#include <math.h>

struct root_result {
    double root;
    int iterations;
    int converged;
};

struct root_result dbg_newton_solve(double (*f)(double), double (*df)(double), double x0,
                                    double tol, int max_iter) {
    struct root_result r = {x0, 0, 0};
    double x = x0;
    for (int it = 0; it < max_iter; ++it) {
        double fx = f(x);
        double slope = df(x);
        if (slope == 0.0)
            break;
        double step = fx / slope;
        x -= step;
        r.iterations = it + 1;
        if (fabs(step) < tol) {
            r.converged = 1;
            break;
        }
    }
    r.root = x;
    return r;
}

double dbg_cubic(double x) { return x * x * x - 2.0 * x - 5.0; }

double dbg_cubic_prime(double x) { return 3.0 * x * x - 2.0; }

double dbg_solve_cubic(void) {
    struct root_result r = dbg_newton_solve(dbg_cubic, dbg_cubic_prime, 2.0, 1e-12, 50);
    return r.converged ? r.root : NAN;
}

double dbg_inverse_sqrt(double a) {
    double y = 1.0 / a;
    for (int k = 0; k < 6; ++k) {
        double y2 = y * y;
        y = y * (1.5 - 0.5 * a * y2);
    }
    return y;
}
