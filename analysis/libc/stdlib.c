// agx's model of <stdlib.h> and <errno.h> (besides malloc, calloc, free, exit and
// abort, which are built in): number parsing as glibc does it, abs, and rand() as an
// input in [0, RAND_MAX]. `long` has the data model's width, as in the program.

__thread int __agx_errno;

int *__errno_location(void)
{
    return &__agx_errno;
}

// The magnitude of the number at the start of `s` as strtoull parses it (space, sign,
// base prefix, digits), at most `pos_max` (or `neg_max` after a minus sign): a larger
// number gives that limit and errno ERANGE. `*end` (if given) is set past the digits,
// or to `s` when there are none; `*negative` tells whether a minus sign was read.
unsigned long long __agx_strto(const char *s, char **end, int base, unsigned long long pos_max,
                               unsigned long long neg_max, int *negative)
{
    const char *p = s;
    int neg = 0;
    int any = 0;
    int over = 0;
    unsigned long long acc = 0;
    unsigned long long max;
    char c = *p;
    while (c == ' ' || (c >= '\t' && c <= '\r')) {
        p++;
        c = *p;
    }
    if (c == '-' || c == '+') {
        neg = c == '-';
        p++;
        c = *p;
    }
    if ((base == 0 || base == 16) && c == '0' && (p[1] == 'x' || p[1] == 'X')) {
        char h = p[2];
        if ((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')) {
            p += 2;
            c = *p;
            base = 16;
        }
    }
    if (base == 0)
        base = c == '0' ? 8 : 10;
    max = neg ? neg_max : pos_max;
    for (;;) {
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'z')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'Z')
            d = c - 'A' + 10;
        else
            break;
        if (d >= base)
            break;
        any = 1;
        if (over || acc > (max - d) / base)
            over = 1;
        else
            acc = acc * base + d;
        p++;
        c = *p;
    }
    if (end)
        *end = (char *)(any ? p : s);
    if (over) {
        __agx_errno = 34;
        acc = max;
    }
    *negative = neg;
    return acc;
}

long strtol(const char *s, char **end, int base)
{
    unsigned long long max = (unsigned long)-1 >> 1;
    int neg;
    unsigned long long m = __agx_strto(s, end, base, max, max + 1, &neg);
    return (long)(neg ? -m : m);
}

unsigned long strtoul(const char *s, char **end, int base)
{
    unsigned long long max = (unsigned long)-1;
    int neg;
    unsigned long long m = __agx_strto(s, end, base, max, max, &neg);
    return (unsigned long)(neg ? -m : m);
}

long long strtoll(const char *s, char **end, int base)
{
    unsigned long long max = (unsigned long long)-1 >> 1;
    int neg;
    unsigned long long m = __agx_strto(s, end, base, max, max + 1, &neg);
    return (long long)(neg ? -m : m);
}

unsigned long long strtoull(const char *s, char **end, int base)
{
    unsigned long long max = (unsigned long long)-1;
    int neg;
    unsigned long long m = __agx_strto(s, end, base, max, max, &neg);
    return neg ? -m : m;
}

int atoi(const char *s)
{
    return (int)strtol(s, 0, 10);
}

long atol(const char *s)
{
    return strtol(s, 0, 10);
}

long long atoll(const char *s)
{
    return strtoll(s, 0, 10);
}

// qsort's sorted order (the lowering moves the elements, with their types, see
// lower::qsort): perm[i] is the index of the element that goes to position i. A stable
// insertion sort over indices, as glibc's merge sort is stable; `cmp` sees the elements
// in place.
int __agx_qsort_order(void *base, unsigned long n, unsigned long size, void *cmp,
                      void *perm)
{
    int (*compare)(const void *, const void *) = cmp;
    unsigned long *order = perm;
    const char *b = base;
    unsigned long i = 0;
    for (; i < n; i++) {
        unsigned long j = i;
        while (j > 0 && compare(b + order[j - 1] * size, b + i * size) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return 0;
}

// qsort of byte or untyped elements: a stable insertion sort swapping bytes.
int __agx_qsort_bytes(void *base, unsigned long n, unsigned long size, void *cmp)
{
    int (*compare)(const void *, const void *) = cmp;
    char *b = base;
    unsigned long i = 1;
    for (; i < n; i++) {
        unsigned long j = i;
        while (j > 0 && compare(b + (j - 1) * size, b + j * size) > 0) {
            unsigned long k = 0;
            for (; k < size; k++) {
                char t = b[(j - 1) * size + k];
                b[(j - 1) * size + k] = b[j * size + k];
                b[j * size + k] = t;
            }
            j--;
        }
    }
    return 0;
}

// Binary search as glibc's: the middle of the remaining elements, compared with the key
// through the program's function (which reads the element with its own type).
void *bsearch(const void *key, const void *base, unsigned long n, unsigned long size,
              int (*cmp)(const void *, const void *))
{
    const char *lo = base;
    while (n > 0) {
        const char *mid = lo + (n / 2) * size;
        int c = cmp(key, mid);
        if (c == 0)
            return (void *)mid;
        if (c > 0) {
            lo = mid + size;
            n = n - n / 2 - 1;
        } else {
            n = n / 2;
        }
    }
    return 0;
}

int abs(int x)
{
    return x < 0 ? -x : x;
}

long labs(long x)
{
    return x < 0 ? -x : x;
}

long long llabs(long long x)
{
    return x < 0 ? -x : x;
}

// Any value glibc's generators can return: [0, RAND_MAX] with RAND_MAX = 2^31 - 1.
int rand(void)
{
    int v = __VERIFIER_nondet_int();
    __VERIFIER_assume(v >= 0);
    return v;
}

long random(void)
{
    long v = rand();
    return v;
}

int rand_r(unsigned int *seed)
{
    *seed = __VERIFIER_nondet_uint();
    return rand();
}

// The seed is not modelled: every rand() result is an input.
void srand(unsigned int seed)
{
}

void srandom(unsigned int seed)
{
}

// atexit: up to 32 handlers (POSIX's minimum), run in reverse order of registration by
// exit() and by the return from main (the lowering calls __agx_run_atexit there when the
// program uses atexit; _exit and abort run none). The lock makes registration from
// several threads safe, as glibc's is; it is not held while a handler runs, so a handler
// may register another (run next) or call exit (which runs the rest).
void (*__agx_atexit_handlers[32])(void);
int __agx_atexit_count;
char __agx_atexit_lock;

int atexit(void (*handler)(void))
{
    int ok = 0;
    __agx_mutex_lock_raw(&__agx_atexit_lock);
    if (__agx_atexit_count < 32) {
        __agx_atexit_handlers[__agx_atexit_count] = handler;
        __agx_atexit_count = __agx_atexit_count + 1;
        ok = 1;
    }
    __agx_mutex_unlock_raw(&__agx_atexit_lock);
    return ok ? 0 : -1;
}

int __agx_run_atexit(void)
{
    for (;;) {
        void (*handler)(void) = 0;
        __agx_mutex_lock_raw(&__agx_atexit_lock);
        if (__agx_atexit_count > 0) {
            __agx_atexit_count = __agx_atexit_count - 1;
            handler = __agx_atexit_handlers[__agx_atexit_count];
        }
        __agx_mutex_unlock_raw(&__agx_atexit_lock);
        if (!handler)
            return 0;
        handler();
    }
}
