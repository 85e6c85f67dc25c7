/* 1-D and 2-D finite-difference stencils. */

void heat1d_step(int n, const double *restrict u, double *restrict un, double r) {
    un[0] = u[0];
    un[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; ++i)
        un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

void laplace2d(int nx, int ny, const double *restrict u, double *restrict out) {
    for (int j = 1; j < ny - 1; ++j)
        for (int i = 1; i < nx - 1; ++i) {
            int c = j * nx + i;
            out[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c];
        }
}

double jacobi_sweep(int nx, int ny, const double *restrict u, double *restrict un,
                    const double *restrict f, double h2) {
    double diff = 0.0;
    for (int j = 1; j < ny - 1; ++j)
        for (int i = 1; i < nx - 1; ++i) {
            int c = j * nx + i;
            double v = 0.25 * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - h2 * f[c]);
            double d = v - u[c];
            diff += d * d;
            un[c] = v;
        }
    return diff;
}

void smooth5(int n, const float *restrict in, float *restrict out) {
    static const float w[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    for (int i = 2; i < n - 2; ++i) {
        float s = 0.0f;
        for (int k = -2; k <= 2; ++k)
            s += w[k + 2] * in[i + k];
        out[i] = s;
    }
}

void gradient_central(int n, double h, const double *restrict f, double *restrict df) {
    double inv = 1.0 / (2.0 * h);
    df[0] = (f[1] - f[0]) / h;
    for (int i = 1; i < n - 1; ++i)
        df[i] = (f[i + 1] - f[i - 1]) * inv;
    df[n - 1] = (f[n - 1] - f[n - 2]) / h;
}

void wave_step(int n, const double *restrict prev, const double *restrict cur,
               double *restrict next, double c2) {
    for (int i = 1; i < n - 1; ++i)
        next[i] = 2.0 * cur[i] - prev[i] + c2 * (cur[i + 1] - 2.0 * cur[i] + cur[i - 1]);
    next[0] = 0.0;
    next[n - 1] = 0.0;
}
