// agx's model of <string.h>: byte-accurate, one load (and store) per byte as a C
// library's loop does, so concurrent accesses are events and out-of-bounds reads are
// found. Linked into a program that calls one of these functions without defining it.
// (Each top-level item is linked on its own; `size_t` is `unsigned long` in both data
// models. memcpy, memmove and memset on typed memory are lowered by the front end cell
// by cell; __agx_memcpy_bytes and __agx_memset_bytes are their byte loops.)

unsigned long strlen(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
}

unsigned long strnlen(const char *s, unsigned long max)
{
    unsigned long n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

// The difference of the first differing bytes as unsigned char, as glibc's x86-64
// implementations return it.
int strcmp(const char *a, const char *b)
{
    unsigned long i = 0;
    for (;;) {
        unsigned char x = a[i];
        unsigned char y = b[i];
        if (x != y || !x)
            return x - y;
        i++;
    }
}

int strncmp(const char *a, const char *b, unsigned long n)
{
    unsigned long i;
    for (i = 0; i < n; i++) {
        unsigned char x = a[i];
        unsigned char y = b[i];
        if (x != y || !x)
            return x - y;
    }
    return 0;
}

char *strcpy(char *d, const char *s)
{
    unsigned long i = 0;
    char c;
    do {
        c = s[i];
        d[i] = c;
        i++;
    } while (c);
    return d;
}

// Copies at most n bytes and pads with NULs up to n, as C requires.
char *strncpy(char *d, const char *s, unsigned long n)
{
    unsigned long i = 0;
    while (i < n && s[i]) {
        d[i] = s[i];
        i++;
    }
    while (i < n) {
        d[i] = 0;
        i++;
    }
    return d;
}

char *strcat(char *d, const char *s)
{
    strcpy(d + strlen(d), s);
    return d;
}

char *strncat(char *d, const char *s, unsigned long n)
{
    unsigned long end = strlen(d);
    unsigned long i = 0;
    while (i < n && s[i]) {
        d[end + i] = s[i];
        i++;
    }
    d[end + i] = 0;
    return d;
}

// The terminating NUL is part of the string: strchr(s, 0) finds it.
char *strchr(const char *s, int c)
{
    unsigned long i = 0;
    for (;;) {
        if (s[i] == (char)c)
            return (char *)s + i;
        if (!s[i])
            return 0;
        i++;
    }
}

char *strrchr(const char *s, int c)
{
    char *found = 0;
    unsigned long i = 0;
    for (;;) {
        if (s[i] == (char)c)
            found = (char *)s + i;
        if (!s[i])
            return found;
        i++;
    }
}

char *strstr(const char *hay, const char *needle)
{
    unsigned long i = 0;
    for (;;) {
        unsigned long j = 0;
        while (needle[j] && hay[i + j] == needle[j])
            j++;
        if (!needle[j])
            return (char *)hay + i;
        if (!hay[i])
            return 0;
        i++;
    }
}

char *strdup(const char *s)
{
    unsigned long n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        strcpy(d, s);
    return d;
}

char *strndup(const char *s, unsigned long max)
{
    unsigned long n = strnlen(s, max);
    char *d = malloc(n + 1);
    if (d) {
        unsigned long i;
        for (i = 0; i < n; i++)
            d[i] = s[i];
        d[n] = 0;
    }
    return d;
}

int memcmp(const void *a, const void *b, unsigned long n)
{
    const unsigned char *x = a;
    const unsigned char *y = b;
    unsigned long i;
    for (i = 0; i < n; i++) {
        unsigned char u = x[i];
        unsigned char v = y[i];
        if (u != v)
            return u - v;
    }
    return 0;
}

void *memchr(const void *s, int c, unsigned long n)
{
    const unsigned char *p = s;
    unsigned long i;
    for (i = 0; i < n; i++)
        if (p[i] == (unsigned char)c)
            return (void *)(p + i);
    return 0;
}

void *__agx_memcpy_bytes(void *d, const void *s, unsigned long n)
{
    char *to = d;
    const char *from = s;
    unsigned long i;
    for (i = 0; i < n; i++)
        to[i] = from[i];
    return d;
}

// Overlap-safe without comparing pointers of different objects: through a copy.
void *__agx_memmove_bytes(void *d, const void *s, unsigned long n)
{
    char *tmp = malloc(n ? n : 1);
    __agx_memcpy_bytes(tmp, s, n);
    __agx_memcpy_bytes(d, tmp, n);
    free(tmp);
    return d;
}

void *__agx_memset_bytes(void *d, int c, unsigned long n)
{
    char *to = d;
    unsigned long i;
    for (i = 0; i < n; i++)
        to[i] = (char)c;
    return d;
}
