/* Bundle adjustment objective of ADBench (ba.h: ba_objective) summed to a scalar loss, and
 * its gradient through Enzyme's C ABI.
 *
 * Same parameters, in the same order, as ba.primal: cams (n x 11), X (m x 3), w (p),
 * obs (p x 2 camera/point indices), feats (p x 2), then n, m, p.  The loss is the sum of
 * squares of the 2p reprojection errors and the p weight errors 1 - w^2.
 * ba_gradient adds d/d cams, d/d X, d/d w into the three zeroed shadows.
 */
#include <math.h>
#include <stdint.h>

#define BA_NCAMPARAMS 11

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

static double sqsum(int n, const double *x) {
    double res = 0;
    for (int i = 0; i < n; i++)
        res += x[i] * x[i];
    return res;
}

static void cross(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void rodrigues_rotate_point(const double *rot, const double *pt, double *rotated) {
    double sqtheta = sqsum(3, rot);
    if (sqtheta != 0) {
        double w[3], w_cross_pt[3];
        double theta = sqrt(sqtheta);
        double costheta = cos(theta);
        double sintheta = sin(theta);
        double theta_inverse = 1.0 / theta;
        for (int i = 0; i < 3; i++)
            w[i] = rot[i] * theta_inverse;
        cross(w, pt, w_cross_pt);
        double tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1. - costheta);
        for (int i = 0; i < 3; i++)
            rotated[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
    } else {
        double rot_cross_pt[3];
        cross(rot, pt, rot_cross_pt);
        for (int i = 0; i < 3; i++)
            rotated[i] = pt[i] + rot_cross_pt[i];
    }
}

static void radial_distort(const double *rad_params, double *proj) {
    double rsq = sqsum(2, proj);
    double l = 1. + rad_params[0] * rsq + rad_params[1] * rsq * rsq;
    proj[0] = proj[0] * l;
    proj[1] = proj[1] * l;
}

static void project(const double *cam, const double *x, double *proj) {
    const double *c = &cam[3];
    double xo[3], xcam[3];
    xo[0] = x[0] - c[0];
    xo[1] = x[1] - c[1];
    xo[2] = x[2] - c[2];
    rodrigues_rotate_point(&cam[0], xo, xcam);
    proj[0] = xcam[0] / xcam[2];
    proj[1] = xcam[1] / xcam[2];
    radial_distort(&cam[9], proj);
    proj[0] = proj[0] * cam[6] + cam[7];
    proj[1] = proj[1] * cam[6] + cam[8];
}

double ba_primal(const double *restrict cams, const double *restrict x,
                 const double *restrict w, const int64_t *restrict obs,
                 const double *restrict feats, int64_t n, int64_t m, int64_t p) {
    double total = 0.0;
    for (int64_t i = 0; i < p; i++) {
        double proj[2];
        project(&cams[obs[2 * i] * BA_NCAMPARAMS], &x[obs[2 * i + 1] * 3], proj);
        double e0 = w[i] * (proj[0] - feats[2 * i]);
        double e1 = w[i] * (proj[1] - feats[2 * i + 1]);
        total += e0 * e0 + e1 * e1;
    }
    for (int64_t i = 0; i < p; i++) {
        double we = 1 - w[i] * w[i];
        total += we * we;
    }
    return total;
}

void ba_gradient(const double *cams, const double *x, const double *w, const int64_t *obs,
                 const double *feats, int64_t n, int64_t m, int64_t p, double *d_cams,
                 double *d_x, double *d_w) {
    __enzyme_autodiff((void *)ba_primal, enzyme_dup, cams, d_cams, enzyme_dup, x, d_x,
                      enzyme_dup, w, d_w, enzyme_const, obs, enzyme_const, feats,
                      enzyme_const, n, enzyme_const, m, enzyme_const, p);
}
