/* Dense and sparse switch statements. */

double activation(int kind, double x) {
    switch (kind) {
    case 0:
        return x;
    case 1:
        return x > 0 ? x : 0.0;
    case 2:
        return x > 0 ? x : 0.01 * x;
    case 3:
        return x * x;
    case 4:
        return x < -1 ? -1 : (x > 1 ? 1 : x);
    case 5:
        return -x;
    default:
        return 0.0;
    }
}

int days_in_month(int m, int leap) {
    switch (m) {
    case 2:
        return leap ? 29 : 28;
    case 4:
    case 6:
    case 9:
    case 11:
        return 30;
    default:
        return 31;
    }
}

int http_class(int code) {
    switch (code) {
    case 200:
        return 1;
    case 201:
        return 2;
    case 301:
        return 3;
    case 404:
        return 4;
    case 500:
        return 5;
    case 1000:
        return 6;
    case 65535:
        return 7;
    default:
        return -1;
    }
}

int dense_table(int x) {
    switch (x) {
    case 0: return 17;
    case 1: return 4;
    case 2: return 99;
    case 3: return 23;
    case 4: return 8;
    case 5: return 42;
    case 6: return 15;
    case 7: return 16;
    default: return 0;
    }
}

double apply_op(char op, double a, double b) {
    switch (op) {
    case '+':
        return a + b;
    case '-':
        return a - b;
    case '*':
        return a * b;
    case '/':
        return a / b;
    case '^': {
        double r = 1.0;
        for (int i = 0; i < (int)b; ++i)
            r *= a;
        return r;
    }
    default:
        return 0.0;
    }
}

int fallthrough_sum(int n) {
    int s = 0;
    switch (n) {
    case 3:
        s += 3;
        /* fall through */
    case 2:
        s += 2;
        /* fall through */
    case 1:
        s += 1;
        break;
    default:
        s = -1;
    }
    return s;
}

long long sparse64(long long k) {
    switch (k) {
    case -5: return 1;
    case 1LL << 40: return 2;
    case 123456789: return 3;
    default: return 0;
    }
}
