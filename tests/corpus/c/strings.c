/* char* processing, string literals, strlen, memcpy, memset. */
#include <string.h>
#include <stddef.h>

size_t my_strlen(const char *s) {
    const char *p = s;
    while (*p)
        ++p;
    return (size_t)(p - s);
}

int count_char(const char *s, char c) {
    int n = 0;
    for (; *s; ++s)
        n += *s == c;
    return n;
}

void to_upper(char *s) {
    for (; *s; ++s)
        if (*s >= 'a' && *s <= 'z')
            *s = (char)(*s - 'a' + 'A');
}

void reverse(char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n / 2; ++i) {
        char t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
}

double parse_double(const char *s) {
    double sign = 1.0, v = 0.0, scale = 1.0;
    if (*s == '-') {
        sign = -1.0;
        ++s;
    }
    while (*s >= '0' && *s <= '9')
        v = v * 10.0 + (*s++ - '0');
    if (*s == '.') {
        ++s;
        while (*s >= '0' && *s <= '9') {
            scale *= 0.1;
            v += (*s++ - '0') * scale;
        }
    }
    return sign * v;
}

const char *unit_name(int code) {
    static const char *names[] = {"meter", "second", "kilogram", "ampere", "kelvin"};
    return code >= 0 && code < 5 ? names[code] : "unknown";
}

size_t concat(char *dst, size_t cap, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb + 1 > cap)
        return 0;
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb + 1);
    return la + lb;
}

void clear_buffer(double *buf, size_t n) { memset(buf, 0, n * sizeof *buf); }

int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void copy_block(double *restrict dst, const double *restrict src) {
    memcpy(dst, src, 64 * sizeof(double));
}

unsigned hash_fnv1a(const char *s) {
    unsigned h = 2166136261u;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

const char *greeting(void) { return "Hello, automatic differentiation!\n"; }
