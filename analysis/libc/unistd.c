// agx's model of POSIX I/O and getopt. read and write return -1 (errno set) or a count
// up to the request; a read stores that many input bytes.

long read(int fd, void *buf, unsigned long n)
{
    long k;
    if (__VERIFIER_nondet_int()) {
        __agx_errno = __agx_error_number();
        return -1;
    }
    k = __agx_count_upto(n);
    __agx_input_bytes(buf, k);
    return k;
}

long write(int fd, const void *buf, unsigned long n)
{
    if (__VERIFIER_nondet_int()) {
        __agx_errno = __agx_error_number();
        return -1;
    }
    return __agx_count_upto(n);
}

int close(int fd)
{
    if (__VERIFIER_nondet_int()) {
        __agx_errno = __agx_error_number();
        return -1;
    }
    return 0;
}

char *optarg;
int optind = 1;
int opterr = 1;
int optopt;

// The position inside the current argument of a group of options (`-ab`).
int __agx_optpos = 1;

// POSIX getopt: options stop at the first non-option or at `--` (glibc would move
// non-options behind the options first). Error messages go to standard error, which
// agx does not show.
int getopt(int argc, char *const argv[], const char *opts)
{
    char *arg;
    char c;
    const char *spec;
    if (opts[0] == '+' || opts[0] == '-')
        opts++;
    if (optind >= argc)
        return -1;
    arg = argv[optind];
    if (!arg || arg[0] != '-' || arg[1] == 0)
        return -1;
    if (__agx_optpos == 1 && arg[1] == '-' && arg[2] == 0) {
        optind++;
        return -1;
    }
    c = arg[__agx_optpos];
    spec = c == ':' ? 0 : strchr(opts, c);
    if (spec && spec[1] == ':') {
        if (arg[__agx_optpos + 1]) {
            optarg = arg + __agx_optpos + 1;
        } else if (optind + 1 < argc) {
            optind++;
            optarg = argv[optind];
        } else {
            optopt = c;
            optind++;
            __agx_optpos = 1;
            return opts[0] == ':' ? ':' : '?';
        }
        optind++;
        __agx_optpos = 1;
        return c;
    }
    __agx_optpos++;
    if (!arg[__agx_optpos]) {
        optind++;
        __agx_optpos = 1;
    }
    if (!spec) {
        optopt = c;
        return '?';
    }
    return c;
}
