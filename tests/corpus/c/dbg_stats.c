/* Compiled with -g: statistics over arrays of structs with local arrays. */
#include <math.h>

typedef struct {
    double mean;
    double stddev;
    double min;
    double max;
} summary;

summary dbg_summarize(const double *x, int n) {
    summary s = {0.0, 0.0, INFINITY, -INFINITY};
    double m2 = 0.0;
    for (int i = 0; i < n; ++i) {
        double delta = x[i] - s.mean;
        s.mean += delta / (i + 1);
        m2 += delta * (x[i] - s.mean);
        if (x[i] < s.min)
            s.min = x[i];
        if (x[i] > s.max)
            s.max = x[i];
    }
    s.stddev = n > 1 ? sqrt(m2 / (n - 1)) : 0.0;
    return s;
}

double dbg_covariance(const double *x, const double *y, int n) {
    double mx = 0.0, my = 0.0;
    for (int i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double c = 0.0;
    for (int i = 0; i < n; ++i)
        c += (x[i] - mx) * (y[i] - my);
    return c / (n - 1);
}

int dbg_histogram(const double *x, int n, double lo, double hi, int *bins, int nbins) {
    int counts[32] = {0};
    int outside = 0;
    double width = (hi - lo) / nbins;
    for (int i = 0; i < n; ++i) {
        int b = (int)((x[i] - lo) / width);
        if (b < 0 || b >= nbins || b >= 32) {
            ++outside;
            continue;
        }
        counts[b]++;
    }
    for (int b = 0; b < nbins && b < 32; ++b)
        bins[b] = counts[b];
    return outside;
}

double dbg_linear_fit(const double *x, const double *y, int n, double *intercept) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *intercept = (sy - slope * sx) / n;
    return slope;
}
