#!/usr/bin/env python3
"""Counts the public items of a library crate that a user of the crate can name.

Usage: scripts/count-pub-items.py CRATE_SRC_DIR (e.g. explorer/src)

Walks the module tree from lib.rs. A module is reachable when every declaration on its
way from lib.rs is `pub mod`. In a reachable module it counts each `pub` fn, method,
struct, enum, trait, type, const, static, module and named field (`pub(crate)` and
`pub(super)` are not public), and each name a `pub use` re-exports. Methods and fields
of a type re-exported from a private module are not counted (rustdoc would show them):
the count is a lower bound, comparable between two versions of the same crate.
Inline `#[cfg(test)]` modules are skipped.
"""
import os
import re
import sys

MOD_DECL = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
ITEM = re.compile(
    r"^\s*pub\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|const|static|union|mod)\s+\w+",
    re.M,
)
FIELD = re.compile(r"^\s*pub\s+\w+\s*:", re.M)
PUB_USE = re.compile(r"^\s*pub\s+use\s+([^;]+);", re.M | re.S)


def strip_tests(text):
    """The text before the first inline `#[cfg(test)] mod ... {`."""
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def used_names(tree):
    """Names a `pub use` tree brings in (the alias when renamed, none for `self`)."""
    tree = re.sub(r"\s+", " ", tree)
    inner = tree[tree.index("{") + 1 : tree.rindex("}")] if "{" in tree else tree
    names = []
    depth, part = 0, ""
    for ch in inner + ",":
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            part = part.strip()
            if "{" in part:
                names += used_names(part)
            elif part and not part.endswith("self"):
                names.append(part.split(" as ")[-1].split("::")[-1].strip())
            part = ""
        else:
            part += ch
    return names


def module_file(dir_, name):
    for cand in (os.path.join(dir_, name + ".rs"), os.path.join(dir_, name, "mod.rs")):
        if os.path.exists(cand):
            return cand
    return None


def walk(path, reachable, out):
    text = strip_tests(open(path).read())
    here = os.path.dirname(path)
    base = os.path.basename(path)
    child_dir = here if base in ("lib.rs", "mod.rs") else os.path.join(here, base[:-3])
    if reachable:
        out["items"] += len(ITEM.findall(text)) + len(FIELD.findall(text))
        for tree in PUB_USE.findall(text):
            out["items"] += len(used_names(tree))
    for vis, name in MOD_DECL.findall(text):
        f = module_file(child_dir, name)
        if f:
            walk(f, reachable and vis.strip() == "pub", out)


def main():
    src = sys.argv[1]
    out = {"items": 0}
    walk(os.path.join(src, "lib.rs"), True, out)
    print(out["items"])


if __name__ == "__main__":
    main()
