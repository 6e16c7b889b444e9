#!/usr/bin/env python3
"""Writes a large, valid multithreaded C program for front-end and rule-set timings.

usage: scripts/gen-program.py LINES [SEED] > big.c

The program has many small functions (arithmetic, loops, branches, struct and array
accesses, calls), worker threads that lock and update shared state, and assertions.
"""
import random
import sys


def function(i, rng):
    lines = [f"int f{i}(int a, int b) {{", "    int s = 0;"]
    for k in range(rng.randint(3, 8)):
        kind = rng.randrange(6)
        if kind == 0:
            lines += [f"    for (int j = 0; j < {rng.randint(2, 9)}; j++) {{",
                      f"        s += (a ^ j) * {rng.randint(1, 7)};", "    }"]
        elif kind == 1:
            lines += [f"    if (a > b + {k}) {{", "        s -= b;", "    } else {",
                      f"        s += a % {rng.randint(2, 9)};", "    }"]
        elif kind == 2:
            lines += [f"    table[(a + {k}) & 15] += s;", "    s += table[b & 15];"]
        elif kind == 3:
            lines += [f"    cell.x += a; cell.y = cell.x - {k};", "    s += cell.y;"]
        elif kind == 4 and i > 0:
            lines += [f"    s += f{rng.randrange(i)}(b, a & 7);"]
        else:
            lines += [f"    switch (s & 3) {{ case 0: s++; break; case 1: s += 2; break; default: s--; }}"]
    lines += ["    return s;", "}", ""]
    return lines


def main():
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    out = [
        "#include <pthread.h>",
        "#include <assert.h>",
        "extern int __VERIFIER_nondet_int(void);",
        "struct pair { int x; int y; };",
        "int table[16];",
        "struct pair cell;",
        "int shared;",
        "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;",
        "",
    ]
    i = 0
    while len(out) < target - 40:
        out += function(i, rng)
        i += 1
    out += [
        "void *worker(void *arg) {",
        "    int v = (int)(long)arg;",
        "    pthread_mutex_lock(&m);",
        f"    shared += f{i - 1}(v, 3);",
        "    pthread_mutex_unlock(&m);",
        "    return 0;",
        "}",
        "",
        "int main(void) {",
        "    pthread_t t[4];",
        "    int n = __VERIFIER_nondet_int();",
        "    for (int k = 0; k < 4; k++)",
        "        pthread_create(&t[k], 0, worker, (void *)(long)(k + n));",
        "    for (int k = 0; k < 4; k++)",
        "        pthread_join(t[k], 0);",
        "    assert(shared != 12345);",
        "    return 0;",
        "}",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
