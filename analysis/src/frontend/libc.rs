//! agx's model of the C library, written in C (`analysis/libc/*.c`, shipped in the
//! binary) the way CBMC, KLEE and ESBMC ship theirs, and linked into a program that
//! uses a function or variable it models without defining it.
//!
//! Each top-level item of a model file (a function, a global, a struct type) is linked
//! on its own: the items the program refers to, and transitively the items they refer
//! to, are appended to the preprocessed text behind line markers naming the model file
//! (`<agx-libc>/string.c:12` in messages and witnesses), callees first, and the whole is
//! parsed again. The model then goes through the same lowering as the program, so both
//! engines and every analysis see ordinary C over agx's memory model.
//!
//! A few library functions are lowered by the front end itself because they need the
//! static type of their arguments (`memcpy` copies typed cells); [`LOWERED`] lists the
//! model items their lowering calls.

use lang_c::ast;
use lang_c::span::Span;
use lang_c::visit::{self, Visit};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

/// The model sources, by file name.
const FILES: &[(&str, &str)] = &[
    ("string.c", include_str!("../../libc/string.c")),
    ("stdlib.c", include_str!("../../libc/stdlib.c")),
    ("stdio.c", include_str!("../../libc/stdio.c")),
    ("format.c", include_str!("../../libc/format.c")),
    ("unistd.c", include_str!("../../libc/unistd.c")),
    ("time.c", include_str!("../../libc/time.c")),
    ("pthread.c", include_str!("../../libc/pthread.c")),
];

/// The directory shown for model files in locations.
pub const MODEL_DIR: &str = "<agx-libc>";

/// The text of a model file by the name locations show for it (`<agx-libc>/string.c`), so
/// that reports can print the model's source lines like the program's.
pub fn model_source(shown_name: &str) -> Option<&'static str> {
    let file = shown_name.strip_prefix(MODEL_DIR)?.strip_prefix('/')?;
    FILES
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
}

/// Library functions lowered by the front end, with the model items their lowering
/// calls (see `lower::builtins`).
pub const LOWERED: &[(&str, &[&str])] = &[
    ("memcpy", &["__agx_memcpy_bytes"]),
    ("memmove", &["__agx_memmove_bytes"]),
    ("memset", &["__agx_memset_bytes"]),
    ("atexit", &["__agx_run_atexit"]),
    ("qsort", &["__agx_qsort_order", "__agx_qsort_bytes"]),
    (
        "sprintf",
        &["__agx_put_str", "__agx_put_signed", "__agx_put_unsigned"],
    ),
];

/// The marker [`Linked::used`] holds when a `printf`, `fprintf` or `sprintf` call has a
/// format the front end does not lower piece by piece (not a literal; a `*` width; for
/// sprintf, flags, width, precision or a float): the lowering then passes the arguments
/// as to a variadic function and calls the model's run-time formatter
/// ([`RUNTIME_FORMAT_ITEMS`], `format.c`).
pub const RUNTIME_FORMAT: &str = "<runtime format>";

/// The model's run-time formatters, linked with [`RUNTIME_FORMAT`].
pub const RUNTIME_FORMAT_ITEMS: &[&str] = &["__agx_vprintf", "__agx_vsnprintf"];

/// The marker [`Linked::used`] holds when the program uses mutex types other than
/// normal: the lowering then sends the pthread mutex calls to the model's kind-aware
/// functions ([`MUTEX_KIND_ITEMS`]), which run over agx's plain mutexes.
pub const MUTEX_KINDS: &str = "<mutex kinds>";

/// The model's kind-aware mutex functions, linked with [`MUTEX_KINDS`].
pub const MUTEX_KIND_ITEMS: &[&str] = &[
    "__agx_mutex_init",
    "__agx_mutex_lock",
    "__agx_mutex_trylock",
    "__agx_mutex_unlock",
    "__agx_cond_wait",
    "__agx_mutexattr_init",
    "__agx_mutexattr_settype",
    "__agx_mutexattr_gettype",
];

/// Names whose use (outside enum definitions) means the program may create recursive or
/// error-checking mutexes (`PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP` expands to a list
/// naming `PTHREAD_MUTEX_RECURSIVE_NP`).
const MUTEX_KIND_NAMES: &[&str] = &[
    "pthread_mutexattr_gettype",
    "PTHREAD_MUTEX_RECURSIVE",
    "PTHREAD_MUTEX_RECURSIVE_NP",
    "PTHREAD_MUTEX_ERRORCHECK",
    "PTHREAD_MUTEX_ERRORCHECK_NP",
];

/// The arguments of `pthread_mutexattr_settype` that name a normal mutex: a program that
/// passes only these keeps agx's built-in mutexes (and costs nothing extra).
const NORMAL_MUTEX_TYPES: &[&str] = &[
    "PTHREAD_MUTEX_NORMAL",
    "PTHREAD_MUTEX_DEFAULT",
    "PTHREAD_MUTEX_TIMED_NP",
    "PTHREAD_MUTEX_FAST_NP",
];

/// One top-level item of a model file.
#[derive(Debug)]
struct Item {
    name: String,
    file: &'static str,
    /// The line of the model file the item starts on (1-based).
    line: usize,
    text: &'static str,
    /// The other items it names.
    deps: Vec<usize>,
}

struct Model {
    items: Vec<Item>,
    by_name: HashMap<String, usize>,
}

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let mut items = Vec::new();
        for (file, text) in FILES {
            for (start, end) in split_items(text) {
                let body = &text[start..end];
                items.push(Item {
                    name: item_name(body).unwrap_or_default(),
                    file,
                    line: text[..start].matches('\n').count() + 1,
                    text: body,
                    deps: Vec::new(),
                });
            }
        }
        let by_name: HashMap<String, usize> = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.name.clone(), i))
            .collect();
        for item in items.iter_mut() {
            let mut deps: Vec<usize> = identifiers(item.text)
                .filter(|id| *id != item.name)
                .filter_map(|id| by_name.get(id).copied())
                .collect();
            deps.sort_unstable();
            deps.dedup();
            item.deps = deps;
        }
        Model { items, by_name }
    })
}

/// What linking added to a program.
#[derive(Clone, Debug, Default)]
pub struct Linked {
    /// The names the program uses without defining them that the model provides (items
    /// and [`LOWERED`] functions).
    pub used: BTreeSet<String>,
    /// The preprocessed text of the linked items, with line markers.
    pub text: String,
}

/// The model items a program needs: those it names (in expressions) and does not
/// define, with their dependencies, as text to append to the program.
pub fn link(unit: &ast::TranslationUnit) -> Linked {
    let model = model();
    let mut uses = Uses::default();
    uses.visit_translation_unit(unit);
    let mut linked = Linked::default();
    let mut roots = Vec::new();
    for name in uses.referenced.difference(&uses.defined) {
        if let Some(&i) = model.by_name.get(name.as_str()) {
            roots.push(i);
            linked.used.insert(name.clone());
        }
        if let Some((_, deps)) = LOWERED.iter().find(|(f, _)| f == name) {
            linked.used.insert(name.clone());
            roots.extend(deps.iter().map(|d| model.by_name[*d]));
        }
    }
    if uses.mutex_kinds {
        linked.used.insert(MUTEX_KINDS.to_string());
        roots.extend(MUTEX_KIND_ITEMS.iter().map(|d| model.by_name[*d]));
    }
    if uses.runtime_format {
        linked.used.insert(RUNTIME_FORMAT.to_string());
        roots.extend(RUNTIME_FORMAT_ITEMS.iter().map(|d| model.by_name[*d]));
    }
    // Depth-first, callees first, so every item is declared before its use.
    let mut done = vec![false; model.items.len()];
    let mut order = Vec::new();
    fn visit(model: &Model, i: usize, done: &mut [bool], order: &mut Vec<usize>) {
        if std::mem::replace(&mut done[i], true) {
            return;
        }
        for &d in &model.items[i].deps {
            visit(model, d, done, order);
        }
        order.push(i);
    }
    roots.sort_unstable();
    for i in roots {
        visit(model, i, &mut done, &mut order);
    }
    for i in order {
        let item = &model.items[i];
        linked.text.push_str(&format!(
            "\n# {} \"{MODEL_DIR}/{}\"\n{}\n",
            item.line, item.file, item.text
        ));
    }
    linked
}

/// The names a translation unit refers to in expressions, and those it defines
/// (functions with a body, file-scope objects not declared `extern`).
#[derive(Default)]
struct Uses {
    referenced: HashSet<String>,
    defined: HashSet<String>,
    /// Whether the program may use mutex types other than normal (see [`MUTEX_KINDS`]).
    mutex_kinds: bool,
    /// Whether a formatted output call needs the run-time formatter (see [`RUNTIME_FORMAT`]).
    runtime_format: bool,
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expression(&mut self, e: &'ast ast::Expression, span: &'ast Span) {
        if let ast::Expression::Identifier(id) = e {
            self.referenced.insert(id.node.name.clone());
            self.mutex_kinds |= MUTEX_KIND_NAMES.contains(&id.node.name.as_str());
        }
        visit::visit_expression(self, e, span);
    }

    fn visit_call_expression(&mut self, c: &'ast ast::CallExpression, span: &'ast Span) {
        if let ast::Expression::Identifier(f) = &c.callee.node {
            if f.node.name == "pthread_mutexattr_settype" {
                self.mutex_kinds |= !c
                    .arguments
                    .get(1)
                    .is_some_and(|a| names_normal_type(&a.node));
            }
            self.runtime_format |= needs_runtime_format(&f.node.name, &c.arguments);
        }
        visit::visit_call_expression(self, c, span);
    }

    // glibc's enum of mutex types defines the names in terms of each other: a definition
    // is not a use (and no constant expression names a model item).
    fn visit_enumerator(&mut self, _: &'ast ast::Enumerator, _: &'ast Span) {}

    // Attributes name functions without using them (glibc declares
    // `fopen(...) __attribute__((__malloc__(fclose, 1)))`).
    fn visit_attribute(&mut self, _: &'ast ast::Attribute, _: &'ast Span) {}

    fn visit_translation_unit(&mut self, unit: &'ast ast::TranslationUnit) {
        for ext in &unit.0 {
            match &ext.node {
                ast::ExternalDeclaration::FunctionDefinition(f) => {
                    if let Some(name) = declarator_name(&f.node.declarator.node) {
                        self.defined.insert(name);
                    }
                }
                ast::ExternalDeclaration::Declaration(d) => {
                    let storage_extern_or_typedef = d.node.specifiers.iter().any(|s| {
                        matches!(
                            &s.node,
                            ast::DeclarationSpecifier::StorageClass(c)
                                if matches!(
                                    c.node,
                                    ast::StorageClassSpecifier::Extern
                                        | ast::StorageClassSpecifier::Typedef
                                )
                        )
                    });
                    for init in &d.node.declarators {
                        let decl = &init.node.declarator.node;
                        let is_function = decl.derived.iter().any(|dd| {
                            matches!(
                                dd.node,
                                ast::DerivedDeclarator::Function(_)
                                    | ast::DerivedDeclarator::KRFunction(_)
                            )
                        });
                        if !storage_extern_or_typedef && !is_function {
                            if let Some(name) = declarator_name(decl) {
                                self.defined.insert(name);
                            }
                        }
                    }
                }
                ast::ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        visit::visit_translation_unit(self, unit);
    }
}

/// Whether a call of `name` is formatted output the front end leaves to the model's
/// run-time formatter: a format argument that is not a literal, one with a `*` width or
/// precision, and for sprintf one beyond [`plain_sprintf_format`].
fn needs_runtime_format(name: &str, args: &[lang_c::span::Node<ast::Expression>]) -> bool {
    let at = match name {
        "printf" => 0,
        "fprintf" | "sprintf" => 1,
        _ => return false,
    };
    match args.get(at).map(|a| &a.node) {
        Some(ast::Expression::StringLiteral(s)) => {
            let text = s.node.concat();
            star_width(&text) || (name == "sprintf" && !plain_sprintf_format(&text))
        }
        Some(_) => true,
        None => false,
    }
}

/// Whether a printf format has a `*` width or precision in a conversion (a `*` in the
/// text around the conversions does not count).
pub fn star_width(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        while let Some(&d) = chars.peek() {
            match d {
                '*' => return true,
                '-' | '+' | ' ' | '#' | '.' | '0'..='9' => {
                    chars.next();
                }
                _ => break,
            }
        }
        // The conversion character (`%` of `%%` included).
        chars.next();
    }
    false
}

/// Whether a sprintf format (as written, escapes included) has only the conversions the
/// front end lowers to the model's pieces: `%%`, and `d i u x X o s c` with length
/// modifiers, without flags, width or precision.
pub fn plain_sprintf_format(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        let mut conv = chars.next();
        while matches!(conv, Some('h' | 'l' | 'z' | 'j' | 't')) {
            conv = chars.next();
        }
        if !matches!(
            conv,
            Some('%' | 'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 's' | 'c')
        ) {
            return false;
        }
    }
    true
}

/// Whether a mutex type argument certainly names a normal mutex: 0 or a normal type's name.
fn names_normal_type(e: &ast::Expression) -> bool {
    match e {
        ast::Expression::Identifier(id) => NORMAL_MUTEX_TYPES.contains(&id.node.name.as_str()),
        ast::Expression::Constant(c) => matches!(
            &c.node,
            ast::Constant::Integer(i) if i.number.trim_start_matches('0').is_empty()
        ),
        _ => false,
    }
}

fn declarator_name(d: &ast::Declarator) -> Option<String> {
    match &d.kind.node {
        ast::DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        ast::DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        ast::DeclaratorKind::Abstract => None,
    }
}

/// The byte ranges of the top-level items of a model file: a declaration ends at its
/// `;`, a function definition at its closing brace (a `}` followed by `;` belongs to a
/// declaration, as in a struct type or an initializer list). Comments between items
/// are not part of them.
fn split_items(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(next) = skip_comment_or_literal(bytes, i) {
            if start.is_none() && matches!(b, b'"' | b'\'') {
                start = Some(i);
            }
            i = next;
            continue;
        }
        if start.is_none() && !b.is_ascii_whitespace() {
            start = Some(i);
        }
        match b {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if b == b'}' && depth == 0 && next_significant(bytes, i + 1) != Some(b';') {
                    items.push((start.take().unwrap_or(i), i + 1));
                }
            }
            b';' if depth == 0 => items.push((start.take().unwrap_or(i), i + 1)),
            _ => {}
        }
        i += 1;
    }
    items
}

/// If a comment or a string or character literal starts at `i`, the index past it.
fn skip_comment_or_literal(bytes: &[u8], i: usize) -> Option<usize> {
    let rest = &bytes[i..];
    if rest.starts_with(b"//") {
        return Some(
            rest.iter()
                .position(|&c| c == b'\n')
                .map_or(bytes.len(), |p| i + p),
        );
    }
    if rest.starts_with(b"/*") {
        let end = rest
            .windows(2)
            .skip(2)
            .position(|w| w == b"*/")
            .map_or(bytes.len(), |p| i + p + 4);
        return Some(end);
    }
    let quote = rest[0];
    if quote == b'"' || quote == b'\'' {
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != quote {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        return Some((j + 1).min(bytes.len()));
    }
    None
}

/// The first byte from `i` on that is neither white space nor in a comment.
fn next_significant(bytes: &[u8], mut i: usize) -> Option<u8> {
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else if bytes[i] == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
            i = skip_comment_or_literal(bytes, i)?;
        } else {
            return Some(bytes[i]);
        }
    }
    None
}

/// The name an item declares: the last identifier before the first `(`, `[`, `=`, `{`
/// or `;` (`char *strcpy(...)`, `int optind = 1;`, `struct __agx_timeval {`), or the
/// first after `(*` in a parenthesized declarator.
fn item_name(item: &str) -> Option<String> {
    let stop = item.find(['(', '[', '=', '{', ';']).unwrap_or(item.len());
    // A declarator in parentheses (`void (*handlers[32])(void);`, `int (*f(void))(int)`):
    // the name is the first identifier after `(*`, not the type before the parenthesis.
    if let Some(inner) = item[stop..]
        .strip_prefix('(')
        .and_then(|rest| rest.trim_start().strip_prefix('*'))
    {
        if let Some(name) = identifiers(inner).next() {
            return Some(name.to_string());
        }
    }
    identifiers(&item[..stop]).last().map(str::to_string)
}

/// The identifiers of C text outside comments and literals.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(next) = skip_comment_or_literal(bytes, i) {
            i = next;
            continue;
        }
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(&text[start..i]);
            continue;
        }
        // A number's letters (`0x1f`, `10UL`) are not identifiers.
        if bytes[i].is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_sources_are_found_by_their_shown_name() {
        let text = model_source("<agx-libc>/string.c").unwrap();
        assert!(text.contains("strlen"));
        assert_eq!(model_source("<agx-libc>/nonexistent.c"), None);
        assert_eq!(model_source("string.c"), None);
    }

    #[test]
    fn every_model_item_has_a_unique_name() {
        let model = model();
        let mut seen = HashSet::new();
        for item in &model.items {
            assert!(
                !item.name.is_empty()
                    && !["int", "char", "void", "long"].contains(&item.name.as_str()),
                "item at {}:{} has no name: {:?}",
                item.file,
                item.line,
                item.text
            );
            assert!(seen.insert(&item.name), "{} defined twice", item.name);
        }
        for (_, deps) in LOWERED {
            for d in *deps {
                assert!(model.by_name.contains_key(*d), "{d} is not a model item");
            }
        }
    }

    #[test]
    fn splits_items_and_finds_dependencies() {
        let model = model();
        let strdup = &model.items[model.by_name["strdup"]];
        let deps: Vec<&str> = strdup
            .deps
            .iter()
            .map(|&d| model.items[d].name.as_str())
            .collect();
        assert_eq!(deps, ["strlen", "strcpy"]);
        assert!(strdup.text.starts_with("char *strdup("));
        assert!(strdup.text.ends_with('}'));
        let table = &model.items[model.by_name["__agx_strerror_text"]];
        assert!(table.text.ends_with("};"));
        let timeval = &model.items[model.by_name["__agx_timeval"]];
        assert!(timeval.text.starts_with("struct __agx_timeval {"));
    }

    #[test]
    fn names_skip_comments_literals_and_numbers() {
        let ids: Vec<&str> = identifiers("a /* b */ \"c\" 'd' 0x1f e // f\n g").collect();
        assert_eq!(ids, ["a", "e", "g"]);
        assert_eq!(
            item_name("unsigned long strlen(const char *s)").as_deref(),
            Some("strlen")
        );
        assert_eq!(item_name("int optind = 1;").as_deref(), Some("optind"));
        assert_eq!(
            item_name("void (*handlers[32])(void);").as_deref(),
            Some("handlers")
        );
        assert_eq!(
            item_name("int (*pick(int k))(int) { return 0; }").as_deref(),
            Some("pick")
        );
    }

    #[test]
    fn model_bodies_have_no_comments() {
        // The model is parsed as preprocessed text, where a comment is a syntax error.
        for item in &model().items {
            let body = item.text.split_once('{').map_or("", |(_, b)| b);
            assert!(
                !body.contains("//") && !body.contains("/*"),
                "{} ({}:{}) has a comment in its body",
                item.name,
                item.file,
                item.line
            );
        }
    }

    #[test]
    fn sprintf_formats_beyond_the_pieces_need_the_runtime_formatter() {
        assert!(plain_sprintf_format("\"%d-%s %lu %hhx %%\\n\""));
        for format in [
            "\"%5d\"", "\"%f\"", "\"%-d\"", "\"%.2s\"", "\"%p\"", "\"%*d\"",
        ] {
            assert!(!plain_sprintf_format(format), "{format}");
        }
    }

    /// Whether a program's formatted output links the run-time formatter.
    fn runtime_format_linked(main_body: &str) -> bool {
        let text = format!(
            "int printf(const char *, ...);\nint sprintf(char *, const char *, ...);\n\
             int main(void) {{ char b[32]; const char *f = \"%d\"; {main_body} return 0; }}"
        );
        let unit = crate::frontend::parse_preprocessed(text, "t.c").expect("parses");
        unit.linked.contains(RUNTIME_FORMAT)
    }

    #[test]
    fn only_formats_the_front_end_cannot_lower_link_the_runtime_formatter() {
        assert!(!runtime_format_linked("printf(\"%5.2f %s\", 1.0, b);"));
        assert!(!runtime_format_linked("sprintf(b, \"%d-%s\", 1, b);"));
        assert!(runtime_format_linked("printf(f, 1);"));
        assert!(runtime_format_linked("printf(\"%*d\", 3, 1);"));
        assert!(!runtime_format_linked("printf(\"*p=%d %%*d\", 1);"));
        assert!(runtime_format_linked("sprintf(b, \"%.2f\", 1.0);"));
        assert!(runtime_format_linked("sprintf(b, f, 1);"));
    }

    /// Whether `program`, after glibc-like declarations, gets the kind-aware mutexes.
    fn mutex_kinds_linked(program: &str) -> bool {
        let text = format!(
            "{}pthread_mutexattr_t a;\n{program}",
            crate::lower::mutex_kinds::GLIBC_MUTEX_TYPES
        );
        let unit = crate::frontend::parse_preprocessed(text, "t.c").expect("parses");
        unit.linked.contains(MUTEX_KINDS)
    }

    #[test]
    fn only_programs_naming_a_mutex_type_other_than_normal_get_kind_aware_mutexes() {
        assert!(!mutex_kinds_linked("int main(void) { return 0; }"));
        assert!(!mutex_kinds_linked(
            "int main(void) { return pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL); }"
        ));
        assert!(!mutex_kinds_linked(
            "int main(void) { return pthread_mutexattr_settype(&a, 0); }"
        ));
        assert!(mutex_kinds_linked(
            "int main(void) { return pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE); }"
        ));
        assert!(mutex_kinds_linked(
            "int f(int k) { return pthread_mutexattr_settype(&a, k); }"
        ));
        assert!(mutex_kinds_linked(
            "pthread_mutex_t m = { { 0, 0, 0, 0, PTHREAD_MUTEX_RECURSIVE_NP } };"
        ));
    }
}
