/* A complete program with main: gradient descent on a quadratic, printing progress. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define DIM 8

static double quad_loss(const double *x, const double *center, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = x[i] - center[i];
        s += (i + 1) * d * d;
    }
    return s;
}

void quad_grad(const double *x, const double *center, double *g, int n) {
    for (int i = 0; i < n; ++i)
        g[i] = 2.0 * (i + 1) * (x[i] - center[i]);
}

int gradient_descent(double *x, const double *center, int n, double lr, int max_iter) {
    double *g = malloc(sizeof(double) * (size_t)n);
    if (!g)
        return -1;
    int it;
    for (it = 0; it < max_iter; ++it) {
        quad_grad(x, center, g, n);
        double gn = 0.0;
        for (int i = 0; i < n; ++i) {
            x[i] -= lr * g[i];
            gn += g[i] * g[i];
        }
        if (sqrt(gn) < 1e-10)
            break;
    }
    free(g);
    return it;
}

int main(int argc, char **argv) {
    double lr = argc > 1 ? atof(argv[1]) : 0.05;
    double x[DIM] = {0}, c[DIM];
    for (int i = 0; i < DIM; ++i)
        c[i] = sin((double)i);
    int iters = gradient_descent(x, c, DIM, lr, 10000);
    if (iters < 0) {
        fprintf(stderr, "allocation failed\n");
        return EXIT_FAILURE;
    }
    printf("converged in %d iterations, loss %.3e\n", iters, quad_loss(x, c, DIM));
    for (int i = 0; i < DIM; ++i)
        printf("x[%d] = %+.6f (target %+.6f)\n", i, x[i], c[i]);
    return 0;
}
