// agx's model of file I/O: the outside world is an input. Every result is
// nondeterministic within the range the C library documents, and what a read stores is
// input bytes. `FILE *` is `void *` here; a stream is a fresh heap object that is never
// dereferenced. Output through fputs/fputc goes to agx's one output, as fprintf's does.

// NULL (errno set) or a new stream.
void *fopen(const char *path, const char *mode)
{
    if (__VERIFIER_nondet_int()) {
        __agx_errno = __agx_error_number();
        return 0;
    }
    return malloc(1);
}

void *fdopen(int fd, const char *mode)
{
    return fopen("", mode);
}

// 0, or EOF with errno set.
int fclose(void *stream)
{
    if (__VERIFIER_nondet_int()) {
        __agx_errno = __agx_error_number();
        return -1;
    }
    return 0;
}

// A positive errno value.
int __agx_error_number(void)
{
    int e = __VERIFIER_nondet_int();
    __VERIFIER_assume(e > 0);
    return e;
}

// The first `n` bytes of `buf` become inputs.
void __agx_input_bytes(void *buf, unsigned long n)
{
    char *p = buf;
    unsigned long i;
    for (i = 0; i < n; i++)
        p[i] = __VERIFIER_nondet_char();
}

// A count in [0, n].
unsigned long __agx_count_upto(unsigned long n)
{
    unsigned long k = __VERIFIER_nondet_ulong();
    __VERIFIER_assume(k <= n);
    return k;
}

unsigned long fread(void *buf, unsigned long size, unsigned long n, void *stream)
{
    unsigned long k = __agx_count_upto(n);
    __agx_input_bytes(buf, k * size);
    return k;
}

unsigned long fwrite(const void *buf, unsigned long size, unsigned long n, void *stream)
{
    return __agx_count_upto(n);
}

// NULL (end of file or error), or at most n - 1 input bytes and a NUL.
char *fgets(char *buf, int n, void *stream)
{
    unsigned long k;
    if (n <= 0 || __VERIFIER_nondet_int())
        return 0;
    k = __agx_count_upto(n - 1);
    __agx_input_bytes(buf, k);
    buf[k] = 0;
    return buf;
}

// A byte as unsigned char, or EOF.
int fgetc(void *stream)
{
    int c = __VERIFIER_nondet_int();
    __VERIFIER_assume(c >= -1 && c <= 255);
    return c;
}

int getc(void *stream)
{
    return fgetc(stream);
}

int getchar(void)
{
    return fgetc(0);
}

int fputs(const char *s, void *stream)
{
    printf("%s", s);
    return 1;
}

int fputc(int c, void *stream)
{
    printf("%c", c);
    return (unsigned char)c;
}

int putc(int c, void *stream)
{
    return fputc(c, stream);
}

// Writes to standard error, which agx does not show.
void perror(const char *s)
{
}

const char *__agx_strerror_text[] = {
    "Success", "Operation not permitted", "No such file or directory", "No such process",
    "Interrupted system call", "Input/output error", "No such device or address",
    "Argument list too long", "Exec format error", "Bad file descriptor",
    "No child processes", "Resource temporarily unavailable", "Cannot allocate memory",
    "Permission denied", "Bad address", "Block device required",
    "Device or resource busy", "File exists", "Invalid cross-device link",
    "No such device", "Not a directory", "Is a directory", "Invalid argument",
    "Too many open files in system", "Too many open files",
    "Inappropriate ioctl for device", "Text file busy", "File too large",
    "No space left on device", "Illegal seek", "Read-only file system", "Too many links",
    "Broken pipe", "Numerical argument out of domain", "Numerical result out of range",
    "Resource deadlock avoided"};

// glibc's messages for errno 0 to 35; "Unknown error" (without glibc's number) beyond.
char *strerror(int e)
{
    if (e >= 0 && e <= 35)
        return (char *)__agx_strerror_text[e];
    return "Unknown error";
}

// sprintf's pieces (the front end lowers a literal format into calls of these): each
// writes at `d` without a NUL and returns the end.
char *__agx_put_str(char *d, const char *s)
{
    unsigned long i = 0;
    char c = s[0];
    while (c) {
        d[i] = c;
        i++;
        c = s[i];
    }
    return d + i;
}

// `v` in base 8, 10 or 16 (upper-case digits if `upper`).
char *__agx_put_unsigned(char *d, unsigned long long v, int base, int upper)
{
    char digits[24];
    int n = 0;
    do {
        int digit = v % base;
        digits[n] = digit < 10 ? '0' + digit : (upper ? 'A' : 'a') + digit - 10;
        n++;
        v /= base;
    } while (v);
    while (n > 0) {
        n--;
        *d = digits[n];
        d++;
    }
    return d;
}

char *__agx_put_signed(char *d, long long v)
{
    if (v < 0) {
        *d = '-';
        d++;
        return __agx_put_unsigned(d, -(unsigned long long)v, 10, 0);
    }
    return __agx_put_unsigned(d, v, 10, 0);
}
