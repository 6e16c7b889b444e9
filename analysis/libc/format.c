// agx's formatted output at run time: printf's format read from memory and its arguments
// taken with va_arg, for the vprintf family (vprintf, vfprintf, vsprintf, vsnprintf,
// vasprintf, vdprintf), snprintf, asprintf, and printf/fprintf/sprintf calls whose format
// the front end cannot lower piece by piece (a format that is not a literal, or sprintf
// with flags, width, precision or floating point). Everything is glibc's behaviour:
// integers, strings and characters with flags, width and precision (`*` too); doubles
// (%f %e %g, upper case) as the exactly rounded decimal of the binary value, ties to
// even. A conversion agx does not model (%n, %a, %p into a buffer, wide characters,
// `long double`, positional arguments) ends the run as unsupported; an argument of
// another type than the conversion reads is va_arg's undefined behaviour.
//
// Flags are bits: 1 '-', 2 '+', 4 ' ', 8 '#', 16 '0'.

// Where the output goes: agx's output (`out`), or `buf` (at most `cap - 1` bytes, the NUL
// is the caller's). `len` counts every byte produced, which is what the functions return.
// Output goes out byte by byte: glibc's stream lock, which keeps one call's output
// together, is a synchronization agx's printf does not model either (an atomic section
// here would order the threads' other accesses and hide their races), so the output of
// concurrent calls may interleave in agx's runs.
struct __agx_sink {
    int out;
    char *buf;
    unsigned long cap;
    unsigned long len;
};

void __agx_emit(struct __agx_sink *s, char c)
{
    if (s->out)
        printf("%c", c);
    else if (s->len + 1 < s->cap)
        s->buf[s->len] = c;
    s->len++;
}

void __agx_emit_n(struct __agx_sink *s, char c, int n)
{
    while (n > 0) {
        __agx_emit(s, c);
        n--;
    }
}

void __agx_emit_text(struct __agx_sink *s, const char *t, int n)
{
    int i;
    for (i = 0; i < n; i++)
        __agx_emit(s, t[i]);
}

// A field of `width`: `sign` (0 for none) and `n` bytes of `body`, padded with spaces
// (left-justified with '-') or, with `zeros`, zeros between the sign and the body.
void __agx_emit_field(struct __agx_sink *s, char sign, const char *body, int n, int width,
                      int flags, int zeros)
{
    int pad = width - n - (sign != 0);
    if (!(flags & 1) && !zeros)
        __agx_emit_n(s, ' ', pad);
    if (sign)
        __agx_emit(s, sign);
    if (!(flags & 1) && zeros)
        __agx_emit_n(s, '0', pad);
    __agx_emit_text(s, body, n);
    if (flags & 1)
        __agx_emit_n(s, ' ', pad);
}

// An integer conversion (d i u o x X) of magnitude `v`, negative if `neg`; `prec` < 0
// when the format gives none. '#' with %o makes the first digit a zero, with %x a
// nonzero value gets 0x; '0' without a precision pads between the sign or 0x and the
// digits. (No comments inside bodies: the model is parsed as preprocessed text.)
void __agx_fmt_int(struct __agx_sink *s, unsigned long long v, int neg, char conv, int flags,
                   int width, int prec)
{
    char digits[24];
    char *body;
    int n = 0, len = 0, zeros;
    int base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
    char sign = 0;
    while (v) {
        int d = v % base;
        digits[n] = d < 10 ? '0' + d : (conv == 'X' ? 'A' : 'a') + d - 10;
        n++;
        v /= base;
    }
    zeros = (prec < 0 ? 1 : prec) - n;
    if (zeros < 0)
        zeros = 0;
    if (base == 8 && (flags & 8) && zeros == 0)
        zeros = 1;
    if (conv == 'd' || conv == 'i')
        sign = neg ? '-' : (flags & 2) ? '+' : (flags & 4) ? ' ' : 0;
    if (base == 16 && (flags & 8) && n > 0)
        len = 2;
    if ((flags & 16) && !(flags & 1) && prec < 0 && (sign != 0) + len + zeros + n < width)
        zeros = width - (sign != 0) - len - n;
    body = malloc(zeros + n + 2);
    if (len) {
        body[0] = '0';
        body[1] = conv;
    }
    while (zeros > 0) {
        body[len] = '0';
        len++;
        zeros--;
    }
    while (n > 0) {
        n--;
        body[len] = digits[n];
        len++;
    }
    __agx_emit_field(s, sign, body, len, width, flags, 0);
    free(body);
}

// %s: at most `prec` bytes (all with `prec` < 0) of `t`; glibc prints a null pointer as
// "(null)" when the precision allows six bytes.
void __agx_fmt_str(struct __agx_sink *s, const char *t, int flags, int width, int prec)
{
    int n = 0;
    if (!t) {
        t = "(null)";
        if (prec >= 0 && prec < 6)
            prec = 0;
    }
    while ((prec < 0 || n < prec) && t[n])
        n++;
    __agx_emit_field(s, 0, t, n, width, flags, 0);
}

// Bits [at, at + 32) of `m` (zero outside it; `at` may be negative).
unsigned int __agx_bits_at(unsigned long long m, int at)
{
    if (at >= 64 || at <= -32)
        return 0;
    if (at >= 0)
        return (m >> at) & 0xffffffffu;
    return (m << -at) & 0xffffffffu;
}

// The decimal digits (values 0 to 9) of the integer m * 2^e (e >= 0) or m / 2^-e
// truncated (e < 0), most significant first, into `out` (at least 320 bytes); returns
// their number (0 for zero). Divides by 10^9 for chunks of nine digits.
int __agx_int_digits(unsigned long long m, int e, char *out)
{
    unsigned int limb[34];
    unsigned int chunk[36];
    int nl, nc = 0, n = 0, i, j;
    if (e < 0) {
        m = -e >= 64 ? 0 : m >> -e;
        e = 0;
    }
    nl = (e + 64 + 31) / 32;
    for (i = 0; i < nl; i++)
        limb[i] = __agx_bits_at(m, 32 * i - e);
    while (nl > 0 && limb[nl - 1] == 0)
        nl--;
    while (nl > 0) {
        unsigned long long rem = 0;
        for (i = nl - 1; i >= 0; i--) {
            unsigned long long cur = (rem << 32) | limb[i];
            limb[i] = cur / 1000000000;
            rem = cur % 1000000000;
        }
        chunk[nc] = rem;
        nc++;
        while (nl > 0 && limb[nl - 1] == 0)
            nl--;
    }
    for (i = nc - 1; i >= 0; i--) {
        char nine[9];
        unsigned int c = chunk[i];
        for (j = 8; j >= 0; j--) {
            nine[j] = c % 10;
            c /= 10;
        }
        for (j = 0; j < 9; j++) {
            if (n > 0 || nine[j] != 0) {
                out[n] = nine[j];
                n++;
            }
        }
    }
    return n;
}

// The next decimal digit of the fraction held in `limb[0..nl)` (a binary fraction scaled
// by 2^(32 nl), least significant limb first): the fraction times ten, whose integer
// part is the digit.
int __agx_next_fraction_digit(unsigned int *limb, int nl)
{
    unsigned long long carry = 0;
    int i;
    for (i = 0; i < nl; i++) {
        unsigned long long cur = (unsigned long long)limb[i] * 10 + carry;
        limb[i] = cur & 0xffffffffu;
        carry = cur >> 32;
    }
    return carry;
}

int __agx_fraction_is_zero(unsigned int *limb, int nl)
{
    int i;
    for (i = 0; i < nl; i++)
        if (limb[i])
            return 0;
    return 1;
}

// The decimal digits of m * 2^e (0 < m < 2^53) rounded to nearest, ties to even (exact
// arithmetic, as glibc rounds): mode 'f' keeps `prec` digits after the point, mode 'e'
// `prec + 1` significant digits. Writes the digits (values 0 to 9, the first one not 0)
// to `d` (room for 310 + prec digits), sets `*dp` so that the value is 0.d0d1... * 10^dp,
// and returns their number (0 when the value rounds to zero); `*carried` tells whether
// the rounding carried out of the first digit. Without an integer part,
// the fraction's leading zeros go first (past prec + 1 of them, %f rounds to zero); then
// the kept digits and the rounding digit; a carry out of the first digit (99.9 -> 100)
// adds a digit in front.
int __agx_decimal(unsigned long long m, int e, char mode, int prec, char *d, int *dp,
                  int *carried)
{
    char idig[320];
    unsigned int frac[36];
    int ni = __agx_int_digits(m, e, idig);
    int nl = 0, shift, i, want, n = 0, up, pending = -1;
    int k = e < 0 ? -e : 0;
    unsigned long long f = k == 0 ? 0 : k >= 64 ? m : m & ((1ull << k) - 1);
    if (k > 0) {
        nl = (k + 31) / 32;
        shift = 32 * nl - k;
        for (i = 0; i < nl; i++)
            frac[i] = __agx_bits_at(f, 32 * i - shift);
    }
    *dp = ni;
    *carried = 0;
    if (ni == 0) {
        pending = __agx_next_fraction_digit(frac, nl);
        while (pending == 0) {
            *dp = *dp - 1;
            if (mode == 'f' && -*dp > prec + 1)
                return 0;
            pending = __agx_next_fraction_digit(frac, nl);
        }
    }
    want = mode == 'f' ? *dp + prec : prec + 1;
    if (want < 0)
        return 0;
    for (i = 0; i <= want; i++) {
        if (i < ni)
            d[i] = idig[i];
        else if (pending >= 0) {
            d[i] = pending;
            pending = -1;
        } else
            d[i] = __agx_next_fraction_digit(frac, nl);
    }
    n = want;
    up = d[n] > 5;
    if (d[n] == 5) {
        int sticky = !__agx_fraction_is_zero(frac, nl);
        for (i = n + 1; i < ni; i++)
            sticky = sticky || idig[i] != 0;
        up = sticky || (n > 0 && d[n - 1] % 2 == 1);
    }
    if (!up)
        return n;
    i = n - 1;
    while (i >= 0 && d[i] == 9) {
        d[i] = 0;
        i--;
    }
    if (i >= 0) {
        d[i]++;
        return n;
    }
    d[0] = 1;
    for (i = 1; i <= n; i++)
        d[i] = 0;
    *dp = *dp + 1;
    *carried = 1;
    return mode == 'f' ? n + 1 : n;
}

// The digit at decimal position `at` of 0.d0d1... (0 outside the digits), as a character.
char __agx_digit_at(char *d, int n, int at)
{
    return at >= 0 && at < n ? '0' + d[at] : '0';
}

// %f's layout of 0.d * 10^dp into `out`; returns its length.
int __agx_layout_f(char *out, char *d, int n, int dp, int prec, int alt)
{
    int len = 0, i;
    if (dp <= 0) {
        out[0] = '0';
        len = 1;
    }
    for (i = 0; i < dp; i++) {
        out[len] = __agx_digit_at(d, n, i);
        len++;
    }
    if (prec > 0 || alt) {
        out[len] = '.';
        len++;
    }
    for (i = 0; i < prec; i++) {
        out[len] = __agx_digit_at(d, n, dp + i);
        len++;
    }
    return len;
}

// %e's mantissa (without the exponent) into `out`; returns its length.
int __agx_layout_e(char *out, char *d, int n, int prec, int alt)
{
    int len = 1, i;
    out[0] = __agx_digit_at(d, n, 0);
    if (prec > 0 || alt) {
        out[1] = '.';
        len = 2;
    }
    for (i = 1; i <= prec; i++) {
        out[len] = __agx_digit_at(d, n, i);
        len++;
    }
    return len;
}

// %g without '#': trailing zeros of the fraction go, then a bare point.
int __agx_strip_zeros(char *out, int len)
{
    int i, point = 0;
    for (i = 0; i < len; i++)
        point = point || out[i] == '.';
    if (!point)
        return len;
    while (out[len - 1] == '0')
        len--;
    if (out[len - 1] == '.')
        len--;
    return len;
}

// "e+05": the exponent, at least two digits.
int __agx_exponent(char *out, int x, int upper)
{
    int len = 2, div = 1;
    out[0] = upper ? 'E' : 'e';
    out[1] = x < 0 ? '-' : '+';
    if (x < 0)
        x = -x;
    while (div * 10 <= x)
        div *= 10;
    if (x < 10) {
        out[2] = '0';
        len = 3;
    }
    while (div > 0) {
        out[len] = '0' + x / div % 10;
        len++;
        div /= 10;
    }
    return len;
}

// inf and nan, padded with spaces (glibc ignores '0' for them).
void __agx_fmt_special(struct __agx_sink *s, char sign, int nan, int upper, int flags,
                       int width)
{
    const char *t = nan ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    __agx_emit_field(s, sign, t, 3, width, flags, 0);
}

// A floating-point conversion (f F e E g G) of `v`; `prec` < 0 when the format gives none.
// %g as glibc prints it: when the rounding carries a value with exponent P-1 to P
// (`%#.2g` of 99.6), the style is %e without decimals (`1.e+02`, where C says `1.0e+02`).
void __agx_fmt_float(struct __agx_sink *s, double v, char conv, int flags, int width, int prec)
{
    unsigned long long bits = __agx_double_bits(v);
    int biased = (bits >> 52) & 0x7ff;
    unsigned long long m = bits & 0xfffffffffffffull;
    int e = biased == 0 ? -1074 : biased - 1075;
    int upper = conv == 'F' || conv == 'E' || conv == 'G';
    char lower = upper ? conv + 32 : conv;
    char sign = (bits >> 63) ? '-' : (flags & 2) ? '+' : (flags & 4) ? ' ' : 0;
    int alt = (flags & 8) != 0, n = 0, dp = 0, carried = 0, len, x, p;
    char *d, *out;
    if (biased == 0x7ff) {
        __agx_fmt_special(s, sign, m != 0, upper, flags, width);
        return;
    }
    if (biased != 0)
        m = m | (1ull << 52);
    if (prec < 0)
        prec = 6;
    p = lower == 'g' && prec == 0 ? 1 : prec;
    d = malloc(320 + p);
    out = malloc(330 + p);
    if (m != 0)
        n = __agx_decimal(m, e, lower == 'f' ? 'f' : 'e', lower == 'g' ? p - 1 : p, d, &dp,
                          &carried);
    if (n == 0)
        dp = lower == 'f' ? 0 : 1;
    x = dp - 1;
    if (lower == 'g' && carried && x == p) {
        len = __agx_layout_e(out, d, n, 0, alt);
        len += __agx_exponent(out + len, x, upper);
    } else if (lower == 'g' && p > x && x >= -4) {
        len = __agx_layout_f(out, d, n, dp, p - 1 - x, alt);
        if (!alt)
            len = __agx_strip_zeros(out, len);
    } else if (lower == 'g') {
        len = __agx_layout_e(out, d, n, p - 1, alt);
        if (!alt)
            len = __agx_strip_zeros(out, len);
        len += __agx_exponent(out + len, x, upper);
    } else if (lower == 'e') {
        len = __agx_layout_e(out, d, n, p, alt);
        len += __agx_exponent(out + len, x, upper);
    } else
        len = __agx_layout_f(out, d, n, dp, p, alt);
    __agx_emit_field(s, sign, out, len, width, flags, (flags & 16) != 0);
    free(d);
    free(out);
}

// A decimal number in the format (a width or precision); `*f` moves past it. Over 4096
// it is not modelled (agx's printf takes the same bound).
int __agx_format_number(const char **f)
{
    int v = 0;
    while (**f >= '0' && **f <= '9') {
        v = v * 10 + (**f - '0');
        if (v > 4096)
            __agx_unsupported("a width or precision over 4096 in a run-time printf format");
        *f = *f + 1;
    }
    return v;
}

// One integer argument of conversion `conv` with length modifier `len` (0, 'H' for hh,
// 'h', 'l', 'q' for ll and j, 'z' for z and t): its magnitude into `*v`; returns whether
// it is negative.
int __agx_int_arg(__builtin_va_list *ap, char conv, char len, unsigned long long *v)
{
    long long x;
    if (conv != 'd' && conv != 'i') {
        if (len == 'l' || len == 'z')
            *v = __builtin_va_arg(*ap, unsigned long);
        else if (len == 'q')
            *v = __builtin_va_arg(*ap, unsigned long long);
        else if (len == 'H')
            *v = (unsigned char)__builtin_va_arg(*ap, unsigned int);
        else if (len == 'h')
            *v = (unsigned short)__builtin_va_arg(*ap, unsigned int);
        else
            *v = __builtin_va_arg(*ap, unsigned int);
        return 0;
    }
    if (len == 'l' || len == 'z')
        x = __builtin_va_arg(*ap, long);
    else if (len == 'q')
        x = __builtin_va_arg(*ap, long long);
    else if (len == 'H')
        x = (signed char)__builtin_va_arg(*ap, int);
    else if (len == 'h')
        x = (short)__builtin_va_arg(*ap, int);
    else
        x = __builtin_va_arg(*ap, int);
    *v = x < 0 ? -(unsigned long long)x : x;
    return x < 0;
}

// The length modifier at `*f` (see __agx_int_arg), moving past it.
char __agx_length(const char **f)
{
    char c = **f;
    if (c == 'h' || c == 'l') {
        *f = *f + 1;
        if (**f == c) {
            *f = *f + 1;
            return c == 'h' ? 'H' : 'q';
        }
        return c;
    }
    if (c == 'j' || c == 'q') {
        *f = *f + 1;
        return 'q';
    }
    if (c == 'z' || c == 't') {
        *f = *f + 1;
        return 'z';
    }
    if (c == 'L')
        __agx_unsupported("`long double` (%L) in a run-time printf format");
    return 0;
}

// One conversion after its '%' at `*f` (moved past it).
void __agx_conversion(struct __agx_sink *s, const char **f, __builtin_va_list *ap)
{
    int flags = 0, width = 0, prec = -1, bit;
    unsigned long long v;
    char len, conv;
    do {
        char c = **f;
        bit = c == '-' ? 1 : c == '+' ? 2 : c == ' ' ? 4 : c == '#' ? 8 : c == '0' ? 16 : 0;
        flags = flags | bit;
        if (bit)
            *f = *f + 1;
    } while (bit);
    if (**f == '*') {
        *f = *f + 1;
        width = __builtin_va_arg(*ap, int);
        if (width < 0) {
            flags = flags | 1;
            width = -width;
        }
    } else
        width = __agx_format_number(f);
    if (**f == '$')
        __agx_unsupported("a positional argument (%N$) in a run-time printf format");
    if (**f == '.') {
        *f = *f + 1;
        if (**f == '*') {
            *f = *f + 1;
            prec = __builtin_va_arg(*ap, int);
            if (prec < 0)
                prec = -1;
        } else
            prec = __agx_format_number(f);
    }
    if (width > 4096 || prec > 4096)
        __agx_unsupported("a width or precision over 4096 in a run-time printf format");
    len = __agx_length(f);
    conv = **f;
    if (conv == 0)
        __agx_unsupported("a run-time printf format ending inside a conversion");
    *f = *f + 1;
    if (conv == 'd' || conv == 'i' || conv == 'u' || conv == 'o' || conv == 'x' || conv == 'X') {
        int neg = __agx_int_arg(ap, conv, len, &v);
        __agx_fmt_int(s, v, neg, conv, flags, width, prec);
    } else if (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'E' || conv == 'g' ||
               conv == 'G')
        __agx_fmt_float(s, __builtin_va_arg(*ap, double), conv, flags, width, prec);
    else if (conv == 's' && len == 0)
        __agx_fmt_str(s, __builtin_va_arg(*ap, char *), flags, width, prec);
    else if (conv == 'c' && len == 0) {
        char c = __builtin_va_arg(*ap, int);
        __agx_emit_field(s, 0, &c, 1, width, flags, 0);
    } else if (conv == '%')
        __agx_emit(s, '%');
    else if (conv == 'p' && s->out && flags == 0 && width == 0 && prec < 0)
        printf("%p", __builtin_va_arg(*ap, void *));
    else
        __agx_unsupported("a run-time printf format conversion other than %d %i %u %o %x "
                          "%X %c %s %f %F %e %E %g %G %% (or %p to the output, plain)");
}

// Formats `f` with the arguments at `ap` into `s`; returns the length of the output. The
// conversions take the address of a local copy of the cursor (a va_list parameter is an
// array decayed to a pointer in gcc's ABI, so `&ap` would not point to a va_list).
int __agx_vformat(struct __agx_sink *s, const char *f, __builtin_va_list ap)
{
    __builtin_va_list args;
    __builtin_va_copy(args, ap);
    while (*f) {
        if (*f != '%') {
            __agx_emit(s, *f);
            f++;
        } else {
            f++;
            __agx_conversion(s, &f, &args);
        }
    }
    __builtin_va_end(args);
    return s->len;
}

// vsnprintf's work (the front end calls it for sprintf formats it does not lower).
int __agx_vsnprintf(char *buf, unsigned long n, const char *fmt, __builtin_va_list ap)
{
    struct __agx_sink s;
    s.out = 0;
    s.buf = buf;
    s.cap = n;
    s.len = 0;
    __agx_vformat(&s, fmt, ap);
    if (n > 0)
        buf[s.len < n ? s.len : n - 1] = 0;
    return s.len;
}

// vprintf's work (the front end calls it for printf formats that are not literals). The
// output of every stream is agx's one output, as for fprintf.
int __agx_vprintf(const char *fmt, __builtin_va_list ap)
{
    struct __agx_sink s;
    s.out = 1;
    s.buf = 0;
    s.cap = 0;
    s.len = 0;
    return __agx_vformat(&s, fmt, ap);
}

int vsnprintf(char *buf, unsigned long n, const char *fmt, __builtin_va_list ap)
{
    return __agx_vsnprintf(buf, n, fmt, ap);
}

int vsprintf(char *buf, const char *fmt, __builtin_va_list ap)
{
    return __agx_vsnprintf(buf, -1, fmt, ap);
}

int vprintf(const char *fmt, __builtin_va_list ap)
{
    return __agx_vprintf(fmt, ap);
}

int vfprintf(void *stream, const char *fmt, __builtin_va_list ap)
{
    return __agx_vprintf(fmt, ap);
}

int vdprintf(int fd, const char *fmt, __builtin_va_list ap)
{
    return __agx_vprintf(fmt, ap);
}

// A fresh heap string (or -1 with *out unchanged when malloc fails: it does not in agx).
int vasprintf(char **out, const char *fmt, __builtin_va_list ap)
{
    __builtin_va_list again;
    int n;
    __builtin_va_copy(again, ap);
    n = __agx_vsnprintf(0, 0, fmt, ap);
    *out = malloc(n + 1);
    __agx_vsnprintf(*out, n + 1, fmt, again);
    __builtin_va_end(again);
    return n;
}

int snprintf(char *buf, unsigned long n, const char *fmt, ...)
{
    __builtin_va_list ap;
    int r;
    __builtin_va_start(ap, fmt);
    r = __agx_vsnprintf(buf, n, fmt, ap);
    __builtin_va_end(ap);
    return r;
}

int asprintf(char **out, const char *fmt, ...)
{
    __builtin_va_list ap;
    int r;
    __builtin_va_start(ap, fmt);
    r = vasprintf(out, fmt, ap);
    __builtin_va_end(ap);
    return r;
}

int dprintf(int fd, const char *fmt, ...)
{
    __builtin_va_list ap;
    int r;
    __builtin_va_start(ap, fmt);
    r = __agx_vprintf(fmt, ap);
    __builtin_va_end(ap);
    return r;
}
