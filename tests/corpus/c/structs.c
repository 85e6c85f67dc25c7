/* Struct passing: by pointer, by value, returned, arrays, nesting, pointer fields. */
#include <stddef.h>

typedef struct {
    double x, y, z;
} vec3;

typedef struct {
    float re, im;
} cplxf;

typedef struct {
    vec3 pos;
    vec3 vel;
    double mass;
} particle;

typedef struct {
    int n;
    double *data;
    const char *name;
} series;

vec3 vec3_add(vec3 a, vec3 b) {
    vec3 r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}

vec3 vec3_scale(vec3 a, double s) { return (vec3){a.x * s, a.y * s, a.z * s}; }

double vec3_dot(const vec3 *a, const vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }

vec3 vec3_cross(vec3 a, vec3 b) {
    return (vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

cplxf cplxf_mul(cplxf a, cplxf b) {
    cplxf r;
    r.re = a.re * b.re - a.im * b.im;
    r.im = a.re * b.im + a.im * b.re;
    return r;
}

void particles_step(particle *ps, int n, double dt, vec3 g) {
    for (int i = 0; i < n; ++i) {
        ps[i].vel = vec3_add(ps[i].vel, vec3_scale(g, dt));
        ps[i].pos.x += ps[i].vel.x * dt;
        ps[i].pos.y += ps[i].vel.y * dt;
        ps[i].pos.z += ps[i].vel.z * dt;
    }
}

double kinetic_energy(const particle *ps, int n) {
    double e = 0.0;
    for (int i = 0; i < n; ++i)
        e += 0.5 * ps[i].mass * vec3_dot(&ps[i].vel, &ps[i].vel);
    return e;
}

vec3 center_of_mass(const particle *ps, int n) {
    vec3 c = {0, 0, 0};
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        c = vec3_add(c, vec3_scale(ps[i].pos, ps[i].mass));
        m += ps[i].mass;
    }
    return vec3_scale(c, 1.0 / m);
}

double series_mean(const series *s) {
    double t = 0.0;
    for (int i = 0; i < s->n; ++i)
        t += s->data[i];
    return s->n ? t / s->n : 0.0;
}

series series_view(double *data, int n, const char *name) {
    series s = {n, data, name};
    return s;
}

size_t particle_stride(void) { return sizeof(particle) + offsetof(particle, mass); }

typedef struct {
    particle big[4];
    int count;
} system4;

system4 make_system(double m) {
    system4 s = {0};
    for (int i = 0; i < 4; ++i)
        s.big[i].mass = m * (i + 1);
    s.count = 4;
    return s;
}
