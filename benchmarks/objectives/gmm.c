/* GMM objective of ADBench (gmm.h: gmm_objective) and its gradient through Enzyme's C ABI.
 *
 * Same parameters, in the same order, as gmm.primal: alphas (k), means (k x d),
 * icf (k x d(d+1)/2), x (n x d), the Wishart prior (gamma, m), then d, k, n.
 * gmm_gradient adds d/d alphas, d/d means, d/d icf into the three zeroed shadows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define PI 3.14159265359 /* ADBench's defs.h */

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

static double arr_max(int64_t n, const double *x) {
    double m = x[0];
    for (int64_t i = 1; i < n; i++)
        m = fmax(m, x[i]);
    return m;
}

static double logsumexp(int64_t n, const double *x) {
    double mx = arr_max(n, x);
    double semx = 0.0;
    for (int64_t i = 0; i < n; i++)
        semx += exp(x[i] - mx);
    return log(semx) + mx;
}

static double sqnorm(int64_t n, const double *x) {
    double res = x[0] * x[0];
    for (int64_t i = 1; i < n; i++)
        res += x[i] * x[i];
    return res;
}

static double log_gamma_distrib(double a, int64_t p) {
    double out = 0.25 * p * (p - 1) * log(PI);
    for (int64_t j = 1; j <= p; j++)
        out += lgamma(a + 0.5 * (1 - j));
    return out;
}

static double log_wishart_prior(int64_t p, int64_t k, double gamma, int64_t m,
                                 const double *sum_qs, const double *qdiags,
                                 const double *icf) {
    int64_t n = p + m + 1;
    int64_t icf_sz = p * (p + 1) / 2;
    double c = n * p * (log(gamma) - 0.5 * log(2.0)) - log_gamma_distrib(0.5 * n, p);
    double out = 0.0;
    for (int64_t ik = 0; ik < k; ik++) {
        double frobenius = sqnorm(p, &qdiags[ik * p]);
        for (int64_t i = p; i < icf_sz; i++)
            frobenius += icf[ik * icf_sz + i] * icf[ik * icf_sz + i];
        out += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
    }
    return out - k * c;
}

static void qtimesx(int64_t d, const double *qdiag, const double *ltri, const double *x,
                    double *out) {
    for (int64_t i = 0; i < d; i++)
        out[i] = qdiag[i] * x[i];
    int64_t li = 0;
    for (int64_t i = 0; i < d; i++)
        for (int64_t j = i + 1; j < d; j++) {
            out[j] += ltri[li] * x[i];
            li++;
        }
}

double gmm_primal(const double *restrict alphas, const double *restrict means,
                  const double *restrict icf, const double *restrict x, double gamma,
                  int64_t m, int64_t d, int64_t k, int64_t n) {
    const double constant = -n * d * 0.5 * log(2 * PI);
    int64_t icf_sz = d * (d + 1) / 2;
    double *qdiags = malloc(sizeof(double) * d * k);
    double *sum_qs = malloc(sizeof(double) * k);
    double *xcentered = malloc(sizeof(double) * d);
    double *qxcentered = malloc(sizeof(double) * d);
    double *main_term = malloc(sizeof(double) * k);

    for (int64_t ik = 0; ik < k; ik++) {
        sum_qs[ik] = 0.0;
        for (int64_t i = 0; i < d; i++) {
            double q = icf[ik * icf_sz + i];
            sum_qs[ik] += q;
            qdiags[ik * d + i] = exp(q);
        }
    }

    double slse = 0.0;
    for (int64_t ix = 0; ix < n; ix++) {
        for (int64_t ik = 0; ik < k; ik++) {
            for (int64_t i = 0; i < d; i++)
                xcentered[i] = x[ix * d + i] - means[ik * d + i];
            qtimesx(d, &qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, qxcentered);
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, qxcentered);
        }
        slse += logsumexp(k, main_term);
    }

    double err = constant + slse - n * logsumexp(k, alphas);
    err += log_wishart_prior(d, k, gamma, m, sum_qs, qdiags, icf);

    free(qdiags);
    free(sum_qs);
    free(xcentered);
    free(qxcentered);
    free(main_term);
    return err;
}

void gmm_gradient(const double *alphas, const double *means, const double *icf,
                  const double *x, double gamma, int64_t m, int64_t d, int64_t k, int64_t n,
                  double *d_alphas, double *d_means, double *d_icf) {
    __enzyme_autodiff((void *)gmm_primal, enzyme_dup, alphas, d_alphas, enzyme_dup, means,
                      d_means, enzyme_dup, icf, d_icf, enzyme_const, x, enzyme_const, gamma,
                      enzyme_const, m, enzyme_const, d, enzyme_const, k, enzyme_const, n);
}
