/* Nested loops: all-pairs gravity, histogramming, and a tiled transpose-add. */
#include <math.h>

typedef struct {
    double x, y, z, vx, vy, vz, m;
} body;

void nbody_accel(int n, const body *b, double *ax, double *ay, double *az) {
    for (int i = 0; i < n; ++i) {
        double fx = 0, fy = 0, fz = 0;
        for (int j = 0; j < n; ++j) {
            if (i == j)
                continue;
            double dx = b[j].x - b[i].x, dy = b[j].y - b[i].y, dz = b[j].z - b[i].z;
            double r2 = dx * dx + dy * dy + dz * dz + 1e-9;
            double inv = b[j].m / (r2 * sqrt(r2));
            fx += dx * inv;
            fy += dy * inv;
            fz += dz * inv;
        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
    }
}

double nbody_energy(int n, const body *b) {
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
        e += 0.5 * b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
        for (int j = i + 1; j < n; ++j) {
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            e -= b[i].m * b[j].m / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

void tiled_transpose_add(int n, const double *restrict a, double *restrict b) {
    const int T = 16;
    for (int ii = 0; ii < n; ii += T)
        for (int jj = 0; jj < n; jj += T)
            for (int i = ii; i < ii + T && i < n; ++i)
                for (int j = jj; j < jj + T && j < n; ++j)
                    b[j * n + i] += a[i * n + j];
}

void pairwise_dist(int n, int d, const double *pts, double *out) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < d; ++k) {
                double t = pts[i * d + k] - pts[j * d + k];
                s += t * t;
            }
            out[i * n + j] = sqrt(s);
        }
}

int count_inversions(const int *a, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            c += a[i] > a[j];
    return c;
}
