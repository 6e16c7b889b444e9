// The oracle of the C library model's run-time formatter (analysis/libc/format.c):
// compiled natively with gcc together with the model (tests/libc_format.rs), it formats
// random doubles and integers with random flags, widths, precisions and length modifiers
// through the model's vsnprintf and through glibc's, and prints every difference.
// Usage: vs_glibc CASES SEED. Exit status 1 when any case differs.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The model's builtins, natively.
unsigned long long __agx_double_bits(double v) {
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return b;
}
void __agx_unsupported(const char *what) {
    fprintf(stderr, "unsupported: %s\n", what);
    exit(2);
}

// The model's definitions under other names than glibc's.
#define vsnprintf agx_vsnprintf
#define vsprintf agx_vsprintf
#define vprintf agx_vprintf
#define vfprintf agx_vfprintf
#define vdprintf agx_vdprintf
#define vasprintf agx_vasprintf
#define snprintf agx_snprintf
#define asprintf agx_asprintf
#define dprintf agx_dprintf
#include "../../analysis/libc/format.c"
#undef vsnprintf
#undef snprintf

static uint64_t state;
static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static long failures, cases;

static void check(const char *fmt, ...) {
    char want[8192], got[8192];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n_want = vsnprintf(want, sizeof want, fmt, ap);
    int n_got = agx_vsnprintf(got, sizeof got, fmt, again);
    va_end(again);
    va_end(ap);
    cases++;
    if (n_want != n_got || strcmp(want, got) != 0) {
        if (failures < 20)
            printf("differs: format %s: glibc [%s] (%d), model [%s] (%d)\n", fmt, want, n_want,
                   got, n_got);
        failures++;
    }
}

static double random_double(void) {
    uint64_t bits;
    double d;
    switch (next() % 6) {
    case 0: // any bit pattern: NaNs, infinities, subnormals included
        bits = next();
        memcpy(&d, &bits, sizeof d);
        return d;
    case 1: // three decimals
        return (double)(int64_t)(next() % 2000001) / 1000.0 - 1000;
    case 2: // eighths: exact ties for %.0f to %.2f
        return (double)(next() % 100000) / 8.0;
    case 3: // halves: ties for %.0f and %g
        d = (double)(next() % 1000) + 0.5;
        return next() % 2 ? d : -d;
    case 4: // subnormals
        bits = next() & 0x000fffffffffffffull;
        if (next() % 2)
            bits |= 1ull << 63;
        memcpy(&d, &bits, sizeof d);
        return d;
    default: { // near powers of ten: %g's switch between styles, carries
        int e = (int)(next() % 40) - 20;
        d = next() % 2 ? 9.5 : 1.25;
        for (; e > 0; e--)
            d *= 10;
        for (; e < 0; e++)
            d /= 10;
        return d;
    }
    }
}

// '%', flags, width, precision (`max_precision` at most, sometimes 400).
static int spec(char *fmt, int max_precision) {
    static const char flags[] = "-+ #0";
    int k = 0;
    fmt[k++] = '%';
    for (int f = 0; f < 5; f++)
        if (next() % 4 == 0)
            fmt[k++] = flags[f];
    if (next() % 2)
        k += sprintf(fmt + k, "%d", (int)(next() % 30));
    if (next() % 3)
        k += sprintf(fmt + k, ".%d", (int)(next() % (next() % 8 == 0 ? 400 : max_precision)));
    return k;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    state = argc > 2 ? strtoull(argv[2], 0, 10) | 1 : 88172645463325252ull;
    static const char float_convs[] = "fFeEgG";
    static const char int_convs[] = "diuoxX";
    static const char *lengths[] = {"", "hh", "h", "l", "ll", "z", "j", "t"};
    char fmt[64];
    for (long i = 0; i < n; i++) {
        int k = spec(fmt, 20);
        fmt[k++] = float_convs[next() % 6];
        fmt[k] = 0;
        check(fmt, random_double());
    }
    for (long i = 0; i < n; i++) {
        int k = spec(fmt, 25);
        int length = (int)(next() % 8);
        k += sprintf(fmt + k, "%s", lengths[length]);
        fmt[k++] = int_convs[next() % 6];
        fmt[k] = 0;
        uint64_t v = next();
        if (next() % 3 == 0)
            v %= 1000;
        if (next() % 5 == 0)
            v = 0;
        if (length >= 3)
            check(fmt, (long long)v);
        else
            check(fmt, (int)v);
    }
    check("%s|%5s|%-5s|%.2s|%c|%-3c|%%|%*d|%-*d|%.*f|%*.*e", "hey", "ab", "cd", "xyz", 'q', 'r',
          7, 42, 7, 42, 3, 3.14159, 12, 2, 1234.5);
    check("%s %.3s %10.7s", (char *)0, (char *)0, (char *)0);
    check("%f %e %g %.0f %.0e %#.0f %#.0e %#g %g %g", 0.0, -0.0, 0.0, 0.5, 0.5, 1.5, 2.5, 0.0,
          1e-5, 123456789.0);
    check("%.1074f", 4.9406564584124654e-324);
    check("%.400e %f %.30g", 4.9406564584124654e-324, 1.7976931348623157e308,
          1.7976931348623157e308);
    check("%.3f %.2f %.1f %.0f %.0f %.0f", 0.0005, 0.125, 0.25, 0.6, 1.5, 9.5);
    check("%g %g %g %g %G %f %F %e", 9.9999995, 99999.95, 999999.5, 0.0001, 1e-300,
          1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0);
    check("%#.2G %#.3g %#.4g %#.6g %#.1g %#.3g %.2g", 99.6, 999.6, 9999.7, 999999.7, 0.96, 99.96,
          99.6);
    printf("%ld cases, %ld differ\n", cases, failures);
    return failures != 0;
}
