/* Unions for type punning and bitfields for packed flags. */
#include <stdint.h>

typedef union {
    double d;
    uint64_t u;
    struct {
        uint32_t lo, hi;
    } w;
} dbits;

uint64_t double_to_bits(double x) {
    dbits b;
    b.d = x;
    return b.u;
}

int double_exponent(double x) {
    dbits b = {.d = x};
    return (int)((b.w.hi >> 20) & 0x7ff) - 1023;
}

double make_double(uint32_t hi, uint32_t lo) {
    dbits b;
    b.w.hi = hi;
    b.w.lo = lo;
    return b.d;
}

typedef struct {
    unsigned sign : 1;
    unsigned exponent : 8;
    unsigned mantissa : 23;
} float_fields;

typedef union {
    float f;
    float_fields bits;
} fpun;

float float_from_fields(unsigned s, unsigned e, unsigned m) {
    fpun p;
    p.bits.sign = s;
    p.bits.exponent = e;
    p.bits.mantissa = m;
    return p.f;
}

unsigned float_exp_field(float f) {
    fpun p = {.f = f};
    return p.bits.exponent;
}

struct cell_flags {
    unsigned boundary : 1;
    unsigned fixed : 1;
    signed level : 4;
    unsigned material : 10;
};

int count_boundary(const struct cell_flags *c, int n) {
    int k = 0;
    for (int i = 0; i < n; ++i)
        k += c[i].boundary && !c[i].fixed;
    return k;
}

void refine(struct cell_flags *c, int n) {
    for (int i = 0; i < n; ++i)
        if (c[i].level < 7)
            c[i].level++;
}

typedef struct {
    int kind;
    union {
        double scalar;
        struct {
            double x, y;
        } vec;
        int index;
    } as;
} value;

double value_norm(const value *v) {
    switch (v->kind) {
    case 0:
        return v->as.scalar < 0 ? -v->as.scalar : v->as.scalar;
    case 1:
        return v->as.vec.x * v->as.vec.x + v->as.vec.y * v->as.vec.y;
    default:
        return (double)v->as.index;
    }
}
