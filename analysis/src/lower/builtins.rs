//! Calls agx knows the meaning of: pthreads, the SV-COMP `__VERIFIER_*` interface,
//! assertions, and the few libc functions the engines model (allocation, printf, exit);
//! `sscanf` and friends ([`super::scanf`]) and pthread keys ([`super::tls_keys`]) are
//! lowered to existing IR in their own modules.
//! Calls of other functions without a body become havoc (with a warning) when that is
//! sound, and are rejected when the function could write memory through a pointer or
//! synchronize threads in a way agx does not model.

use super::expr::Val;
use super::func::FnBuilder;
use super::types::{CType, FuncType, IntType};
use super::{LResult, Lowerer, Symbol};
use crate::frontend::libc::{star_width, RUNTIME_FORMAT};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Node;

/// Functions that are rejected outright: their semantics cannot be approximated.
const UNSUPPORTED: &[&str] = &[
    "setjmp",
    "_setjmp",
    "__sigsetjmp",
    "sigsetjmp",
    "longjmp",
    "_longjmp",
    "siglongjmp",
    "__builtin_setjmp",
    "__builtin_longjmp",
    "fork",
    "signal",
    "sigaction",
    "alloca",
    "__builtin_alloca",
    "realloc",
];

/// Thread cancellation and its cleanup handlers (glibc's `pthread_cleanup_push` macro
/// calls `__pthread_register_cancel`): agx does not model cancellation points.
const CANCELLATION: &[&str] = &[
    "pthread_cancel",
    "pthread_setcancelstate",
    "pthread_setcanceltype",
    "pthread_testcancel",
    "__pthread_register_cancel",
    "__pthread_unregister_cancel",
    "_pthread_cleanup_push",
    "_pthread_cleanup_pop",
];

/// External functions that are harmless to treat as havoc even though they take
/// pointers: attribute objects that only configure defaults agx already assumes.
const HARMLESS: &[&str] = &[
    "pthread_attr_init",
    "pthread_attr_destroy",
    "pthread_attr_setdetachstate",
    "pthread_attr_setstacksize",
    "pthread_mutexattr_init",
    "pthread_mutexattr_destroy",
    "pthread_condattr_init",
    "pthread_condattr_destroy",
    "fflush",
];

impl FnBuilder<'_, '_> {
    /// Lowers `name(args)` if `name` is a built-in; `None` for ordinary calls.
    pub fn builtin_call(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
        user_defined: bool,
    ) -> LResult<Option<Val>> {
        let args = &c.node.arguments;
        self.at(c.span);
        let sync = |op: SyncOp| Some(BuiltinKind::Sync(op));
        if !user_defined {
            if let Some(v) = self.mutex_kind_call(name, c)? {
                return Ok(Some(v));
            }
            if let Some(v) = self.atomic_builtin(name, c)? {
                return Ok(Some(v));
            }
        }
        // The `_raw` names are the C model's: agx's own (normal) mutexes, whatever the
        // program's mutex calls lower to.
        let kind = match name {
            "pthread_create" => {
                let [h, _attr, f, a] = self.args_n::<4>(name, c)?;
                sync(SyncOp::ThreadCreate {
                    handle: h,
                    func: f,
                    arg: a,
                })
            }
            "pthread_join" => {
                let [t, r] = self.args_n::<2>(name, c)?;
                sync(SyncOp::ThreadJoin {
                    thread: t,
                    result: r,
                })
            }
            "pthread_exit" => {
                let [v] = self.args_n::<1>(name, c)?;
                self.terminate(TermKind::ThreadExit(v));
                return Ok(Some(void_val()));
            }
            "pthread_mutex_init" | "__agx_mutex_init_raw" => {
                self.one_of::<2>(name, c, |m| SyncOp::MutexInit { mutex: m })?
            }
            "pthread_mutex_lock" | "__agx_mutex_lock_raw" => {
                self.one_of::<1>(name, c, |m| SyncOp::MutexLock { mutex: m })?
            }
            "pthread_mutex_unlock" | "__agx_mutex_unlock_raw" => {
                self.one_of::<1>(name, c, |m| SyncOp::MutexUnlock { mutex: m })?
            }
            "pthread_mutex_trylock" | "__agx_mutex_trylock_raw" => {
                self.one_of::<1>(name, c, |m| SyncOp::MutexTryLock { mutex: m })?
            }
            "pthread_mutex_destroy" => {
                self.one_of::<1>(name, c, |m| SyncOp::MutexDestroy { mutex: m })?
            }
            "pthread_cond_init" => self.one_of::<2>(name, c, |x| SyncOp::CondInit { cond: x })?,
            "pthread_cond_signal" => {
                self.one_of::<1>(name, c, |x| SyncOp::CondSignal { cond: x })?
            }
            "pthread_cond_broadcast" => {
                self.one_of::<1>(name, c, |x| SyncOp::CondBroadcast { cond: x })?
            }
            "pthread_cond_destroy" => {
                self.one_of::<1>(name, c, |x| SyncOp::CondDestroy { cond: x })?
            }
            "pthread_cond_wait" | "__agx_cond_wait_raw" => {
                let [cv, m] = self.args_n::<2>(name, c)?;
                sync(SyncOp::CondWait {
                    cond: cv,
                    mutex: m,
                    spurious: name == "pthread_cond_wait",
                })
            }
            "pthread_self" if !user_defined => {
                self.args_n::<0>(name, c)?;
                let handle = IntType::new(self.l.dm.pointer_bits(), false);
                let dst = self.new_reg(None, CType::Int(handle).scalar().expect("an integer"));
                self.emit(StmtKind::Assign {
                    dst,
                    value: Rvalue::ThreadId,
                });
                return Ok(Some(Val {
                    op: Operand::Reg(dst),
                    ty: CType::Int(handle),
                }));
            }
            "__agx_mutex_held" => return self.mutex_held(c).map(Some),
            "pthread_mutexattr_settype" if !user_defined => {
                return self.mutexattr_settype(c).map(Some);
            }
            "__VERIFIER_atomic_begin" => sync(SyncOp::AtomicBegin),
            "__VERIFIER_atomic_end" => sync(SyncOp::AtomicEnd),
            "__VERIFIER_assume" => {
                let [cond] = self.args_n::<1>(name, c)?;
                self.emit(StmtKind::Assume { cond });
                return Ok(Some(void_val()));
            }
            "__VERIFIER_error" | "reach_error" => {
                self.terminate(TermKind::Error(Failure::ReachError));
                return Ok(Some(void_val()));
            }
            "__assert_fail" | "__assert_perror_fail" | "__assert" => {
                let expr = match args.first().map(|a| &a.node) {
                    Some(Expression::StringLiteral(s)) => self.literal_text(s)?,
                    _ => String::new(),
                };
                self.terminate(TermKind::Error(Failure::Assertion { expr }));
                return Ok(Some(void_val()));
            }
            "assert" if !user_defined => {
                let [cond] = self.args_n::<1>(name, c)?;
                let text = self.source_text(&args[0]);
                let ok = self.new_block();
                let fail = self.new_block();
                self.branch(cond, ok, fail);
                self.switch_to(fail);
                self.terminate(TermKind::Error(Failure::Assertion { expr: text }));
                self.switch_to(ok);
                return Ok(Some(void_val()));
            }
            "abort" => {
                self.terminate(TermKind::Abort);
                return Ok(Some(void_val()));
            }
            "exit" | "_exit" | "_Exit" => {
                let [code] = self.args_n::<1>(name, c)?;
                if name == "exit" {
                    self.run_atexit_handlers();
                }
                self.terminate(TermKind::Exit(code));
                return Ok(Some(void_val()));
            }
            "malloc" => {
                let [size] = self.args_n::<1>(name, c)?;
                return Ok(Some(self.alloc(size, false)));
            }
            "calloc" => {
                let [n, size] = self.args_n::<2>(name, c)?;
                let st = self.l.layout().size_t().scalar().expect("size_t");
                let total = self.assign_tmp(
                    st,
                    Rvalue::Binary {
                        op: BinOp::Mul,
                        ty: st,
                        lhs: n,
                        rhs: size,
                    },
                );
                return Ok(Some(self.alloc(total, true)));
            }
            "free" => {
                let [ptr] = self.args_n::<1>(name, c)?;
                self.emit(StmtKind::Free { ptr });
                return Ok(Some(void_val()));
            }
            "printf" => return self.printf(c, 0).map(Some),
            "__builtin_va_start" => return self.va_start(c).map(Some),
            "__builtin_va_copy" => return self.va_copy(c).map(Some),
            "__builtin_va_end" => return self.va_end(c).map(Some),
            // The C library model's: a double's bits, and the end of what it models.
            "__agx_double_bits" => return self.double_bits(c).map(Some),
            "__agx_unsupported" => {
                let what = match args.first().map(|a| &a.node) {
                    Some(Expression::StringLiteral(s)) => self.literal_text(s)?,
                    _ => {
                        return self
                            .l
                            .invalid(c.span, "`__agx_unsupported` takes a string literal")
                    }
                };
                self.terminate(TermKind::Error(Failure::Unsupported { what }));
                return Ok(Some(void_val()));
            }
            // The stream is evaluated and ignored: agx has one output.
            "fprintf" => return self.printf(c, 1).map(Some),
            "puts" | "putchar" => return self.puts(name, c).map(Some),
            "pthread_key_create" | "pthread_setspecific" | "pthread_getspecific"
                if !user_defined =>
            {
                return self.tls_key_call(name, c);
            }
            "pthread_key_delete" if !user_defined => {
                return self.l.unsupported(
                    c.span,
                    "`pthread_key_delete` (agx numbers keys in creation order and never reuses one)",
                );
            }
            "sscanf" | "fscanf" if !user_defined => return self.scanf(name, c, 1).map(Some),
            "scanf" if !user_defined => return self.scanf(name, c, 0).map(Some),
            "sprintf" if self.l.unit.linked.contains(name) => {
                return self.sprintf(c).map(Some);
            }
            "qsort" if self.l.unit.linked.contains(name) => return self.qsort_call(c).map(Some),
            "memcpy" | "memmove" | "memset" if self.l.unit.linked.contains(name) => {
                return self.mem_call(name, c).map(Some);
            }
            "fabs" | "fabsf" | "sqrt" | "sqrtf" if !user_defined => {
                return self.float_math(name, c).map(Some);
            }
            "__builtin_expect" => {
                let v = self.rvalue(&args[0])?;
                return Ok(Some(v));
            }
            _ if name.starts_with("__VERIFIER_nondet_") => {
                return self.nondet(name, c).map(Some);
            }
            _ => None,
        };
        match kind {
            Some(BuiltinKind::Sync(op)) => {
                let dst = self.new_reg(None, Scalar::I32);
                self.emit(StmtKind::Sync { dst: Some(dst), op });
                Ok(Some(Val {
                    op: Operand::Reg(dst),
                    ty: CType::int(),
                }))
            }
            None if user_defined => Ok(None),
            None => self.external_call(name, c),
        }
    }

    /// `pthread_mutexattr_settype(attr, type)` in a program that names only normal types
    /// (`PTHREAD_MUTEX_NORMAL`/`DEFAULT`, or 0: see [`Self::mutex_kind_call`] for the
    /// others): the attribute changes nothing. Any other type reaching here is rejected
    /// rather than checked as a normal mutex.
    fn mutexattr_settype(&mut self, c: &Node<CallExpression>) -> LResult<Val> {
        let [_attr, kind] = self.args_n::<2>("pthread_mutexattr_settype", c)?;
        if !matches!(kind, Operand::Int { bits: 0, .. }) {
            return self.l.unsupported(
                c.span,
                "a mutex type the front end did not recognize (`pthread_mutexattr_settype`)",
            );
        }
        Ok(Val {
            op: Operand::int(0, Scalar::I32),
            ty: CType::int(),
        })
    }

    /// Calls the C model's `__agx_run_atexit` if the program registers handlers with
    /// `atexit` (at `exit` and at the return from `main`).
    pub(super) fn run_atexit_handlers(&mut self) {
        if self.l.unit.linked.contains("atexit") {
            self.call_model("__agx_run_atexit", CType::int(), Vec::new(), Vec::new());
        }
    }

    /// The text of a string literal (a format, an assertion's expression), without its NUL.
    pub(super) fn literal_text(&self, s: &Node<StringLiteral>) -> LResult<String> {
        let bytes = super::consts::string_bytes(self.l, &s.node, s.span)?;
        Ok(String::from_utf8_lossy(&bytes[..bytes.len() - 1]).into_owned())
    }

    /// Evaluates exactly `N` arguments of a built-in, converted to their natural types
    /// (integers promoted, pointers as they are).
    pub(super) fn args_n<const N: usize>(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
    ) -> LResult<[Operand; N]> {
        self.check_arity(name, c, N)?;
        let args = &c.node.arguments;
        let mut out = Vec::with_capacity(N);
        for a in args {
            let v = self.rvalue(a)?;
            let ty = match &v.ty {
                CType::Int(it) => CType::Int(super::types::promote(*it)),
                other => other.clone(),
            };
            out.push(self.convert(v, &ty, a.span)?);
        }
        self.at(c.span);
        Ok(out.try_into().expect("N arguments"))
    }

    /// The call passes exactly `n` arguments to the built-in `name`.
    pub(super) fn check_arity(
        &self,
        name: &str,
        c: &Node<CallExpression>,
        n: usize,
    ) -> LResult<()> {
        let given = c.node.arguments.len();
        if given != n {
            return self.l.invalid(
                c.span,
                format!("`{name}` takes {n} arguments, {given} given"),
            );
        }
        Ok(())
    }

    /// A sync op on the first of `N` arguments (the rest, attributes, are evaluated).
    fn one_of<const N: usize>(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
        make: impl FnOnce(Operand) -> SyncOp,
    ) -> LResult<Option<BuiltinKind>> {
        let args = self.args_n::<N>(name, c)?;
        Ok(Some(BuiltinKind::Sync(make(args[0].clone()))))
    }

    fn alloc(&mut self, size: Operand, zeroed: bool) -> Val {
        let dst = self.new_reg(None, Scalar::Ptr);
        self.emit(StmtKind::Alloc { dst, size, zeroed });
        Val {
            op: Operand::Reg(dst),
            ty: CType::ptr_to(CType::Void),
        }
    }

    fn nondet(&mut self, name: &str, c: &Node<CallExpression>) -> LResult<Val> {
        let declared = match self.l.lookup(name) {
            Some(Symbol::Function { ty, .. }) => ty.as_func().map(|f| f.ret.clone()),
            _ => None,
        };
        let ty = match declared {
            Some(t) if !t.is_void() => t,
            _ => match nondet_type(self.l, &name["__VERIFIER_nondet_".len()..]) {
                Some(t) => t,
                None => return self.l.unsupported(c.span, format!("`{name}`")),
            },
        };
        let Some(scalar) = ty.scalar() else {
            return self
                .l
                .unsupported(c.span, format!("`{name}` of a non-integer type"));
        };
        if scalar == Scalar::Ptr {
            return self
                .l
                .unsupported(c.span, format!("`{name}` returning a pointer"));
        }
        for a in &c.node.arguments {
            self.discard(a)?;
        }
        self.at(c.span);
        let dst = self.new_reg(None, scalar);
        self.emit(StmtKind::Nondet { dst, ty: scalar });
        if let CType::Int(it) = ty {
            if it.is_bool {
                // A nondeterministic _Bool is 0 or 1.
                let v = Val {
                    op: Operand::Reg(dst),
                    ty: CType::Int(IntType::new(8, false)),
                };
                let op = self.convert(v, &ty, c.span)?;
                return Ok(Val { op, ty });
            }
        }
        Ok(Val {
            op: Operand::Reg(dst),
            ty,
        })
    }

    /// `printf(fmt, ...)`, or `fprintf(stream, fmt, ...)` with `skip` = 1.
    fn printf(&mut self, c: &Node<CallExpression>, skip: usize) -> LResult<Val> {
        for a in c.node.arguments.iter().take(skip) {
            self.discard(a)?;
        }
        let args = &c.node.arguments[skip.min(c.node.arguments.len())..];
        let runtime = self.l.unit.linked.contains(RUNTIME_FORMAT);
        let Some(Expression::StringLiteral(s)) = args.first().map(|a| &a.node) else {
            if runtime && !args.is_empty() {
                return self.runtime_printf(c, args);
            }
            return self
                .l
                .unsupported(c.span, "printf with a non-literal format");
        };
        let text = self.literal_text(s)?;
        let Some(format) = parse_format(&text, self.l.dm) else {
            if runtime && star_width(&text) {
                return self.runtime_printf(c, args);
            }
            return self
                .l
                .unsupported(s.span, format!("printf format {text:?} (only %d %i %u %x %X %o %s %c %p %f %F %e %E %g %G with flags, width (`*` too) and precision and l/ll/h/hh/z/j/t; no %a, %n or L)"));
        };
        let convs: Vec<Scalar> = format
            .iter()
            .filter_map(|p| match p {
                FormatPiece::Conv { arg, .. } => Some(*arg),
                FormatPiece::Text(_) => None,
            })
            .collect();
        if convs.len() != args.len() - 1 {
            return self.l.invalid(
                c.span,
                format!(
                    "printf format has {} conversions, {} arguments given",
                    convs.len(),
                    args.len() - 1
                ),
            );
        }
        let mut ops = Vec::new();
        for (a, s) in args[1..].iter().zip(convs) {
            let v = self.rvalue(a)?;
            let ty = match s {
                Scalar::Ptr => match v.ty {
                    CType::Ptr(_) => v.ty.clone(),
                    _ => return self.l.invalid(a.span, "printf %s/%p with a non-pointer"),
                },
                // A float for an integer conversion or the reverse is undefined (the
                // value comes from the other register file): rejected, not converted.
                Scalar::Int { .. } | Scalar::Float { .. }
                    if matches!(s, Scalar::Float { .. }) != matches!(v.ty, CType::Float(_)) =>
                {
                    let what = if matches!(v.ty, CType::Float(_)) {
                        "an integer conversion with a floating-point argument (undefined behaviour)"
                    } else {
                        "a floating-point conversion with a non-floating argument (undefined behaviour)"
                    };
                    return self.l.invalid(a.span, format!("printf: {what}"));
                }
                Scalar::Int { bits, signed } => CType::Int(IntType::new(bits, signed)),
                Scalar::Float { bits } => CType::Float(bits),
            };
            ops.push(self.convert(v, &ty, a.span)?);
        }
        self.at(c.span);
        let dst = self.new_reg(None, Scalar::I32);
        self.emit(StmtKind::Print {
            dst: Some(dst),
            format,
            args: ops,
        });
        Ok(Val {
            op: Operand::Reg(dst),
            ty: CType::int(),
        })
    }

    /// `printf(fmt, ...)` whose format is known only at run time (or has a `*` width):
    /// the arguments go to a variadic area as for a variadic function, and the C library
    /// model's `__agx_vprintf` interprets the format (`format.c`).
    fn runtime_printf(
        &mut self,
        c: &Node<CallExpression>,
        args: &[Node<Expression>],
    ) -> LResult<Val> {
        let char_ptr = CType::ptr_to(CType::Int(IntType::CHAR));
        let f = self.rvalue(&args[0])?;
        let format = self.convert(f, &char_ptr, args[0].span)?;
        let area = self.variadic_area(&args[1..])?;
        self.at(c.span);
        let op = self.call_model(
            "__agx_vprintf",
            CType::int(),
            vec![char_ptr, CType::ptr_to(CType::Void)],
            vec![format, area],
        );
        Ok(Val {
            op,
            ty: CType::int(),
        })
    }

    fn puts(&mut self, name: &str, c: &Node<CallExpression>) -> LResult<Val> {
        let [arg] = self.args_n::<1>(name, c)?;
        let format = if name == "puts" {
            vec![
                FormatPiece::Conv {
                    conv: 's',
                    arg: Scalar::Ptr,
                    spec: Default::default(),
                },
                FormatPiece::Text("\n".into()),
            ]
        } else {
            vec![FormatPiece::Conv {
                conv: 'c',
                arg: Scalar::I32,
                spec: Default::default(),
            }]
        };
        let dst = self.new_reg(None, Scalar::I32);
        self.emit(StmtKind::Print {
            dst: Some(dst),
            format,
            args: vec![arg],
        });
        Ok(Val {
            op: Operand::Reg(dst),
            ty: CType::int(),
        })
    }

    /// A call of a function that has (so far) no body: resolved by [`Lowerer::resolve_externals`]
    /// at the end, unless it must be rejected now.
    fn external_call(&mut self, name: &str, c: &Node<CallExpression>) -> LResult<Option<Val>> {
        if self.l.unit.linked.contains(name) {
            // Defined by agx's C library model, appended to the program.
            return Ok(None);
        }
        if CANCELLATION.contains(&name) {
            return self
                .l
                .unsupported(c.span, format!("thread cancellation (`{name}`)"));
        }
        if UNSUPPORTED.contains(&name) || name.starts_with("__builtin_") {
            return self.l.unsupported(c.span, format!("call of `{name}`"));
        }
        if (name.starts_with("pthread_") || name.starts_with("sem_")) && !HARMLESS.contains(&name) {
            return self
                .l
                .unsupported(c.span, format!("synchronization primitive `{name}`"));
        }
        Ok(None)
    }

    /// The source text of an expression (for assertion messages).
    fn source_text(&self, e: &Node<Expression>) -> String {
        let src = &self.l.unit.source;
        src.get(e.span.start..e.span.end)
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

enum BuiltinKind {
    Sync(SyncOp),
}

pub(super) fn void_val() -> Val {
    Val {
        op: Operand::int(0, Scalar::I32),
        ty: CType::Void,
    }
}

/// The type of `__VERIFIER_nondet_<suffix>` when it is not declared.
fn nondet_type(l: &Lowerer, suffix: &str) -> Option<CType> {
    let long = l.dm.pointer_bits();
    let (bits, signed, is_bool) = match suffix {
        "float" => return Some(CType::Float(32)),
        "double" => return Some(CType::Float(64)),
        "int" => (32, true, false),
        "uint" | "unsigned" | "u32" => (32, false, false),
        "char" => (8, true, false),
        "uchar" | "u8" => (8, false, false),
        "short" => (16, true, false),
        "ushort" | "u16" => (16, false, false),
        "long" => (long, true, false),
        "ulong" | "size_t" => (long, false, false),
        "longlong" => (64, true, false),
        "ulonglong" | "u64" => (64, false, false),
        "bool" | "_Bool" => (8, false, true),
        _ => return None,
    };
    Some(CType::Int(IntType {
        bits,
        signed,
        is_bool,
    }))
}

/// Parses a printf format into text and conversions; `None` for what agx does not print
/// (`*` widths, a width or precision over [`MAX_WIDTH`], `%a`, `%n`, `long double`, a
/// precision on `%c`/`%p`).
pub(crate) fn parse_format(text: &str, dm: DataModel) -> Option<Vec<FormatPiece>> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            lit.push(ch);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            lit.push('%');
            continue;
        }
        let spec = parse_spec(&mut chars)?;
        let mut len = String::new();
        while let Some(&m) = chars.peek() {
            if matches!(m, 'l' | 'h' | 'z' | 'j' | 't') {
                len.push(m);
                chars.next();
            } else {
                break;
            }
        }
        let conv = chars.next()?;
        let bits = int_length_bits(&len, dm)?;
        let arg = match conv {
            'd' | 'i' => Scalar::Int { bits, signed: true },
            'u' | 'x' | 'X' | 'o' => Scalar::Int {
                bits,
                signed: false,
            },
            'c' if spec.precision.is_none() => Scalar::I32,
            's' => Scalar::Ptr,
            'p' if spec.precision.is_none() => Scalar::Ptr,
            // A `float` argument is promoted to `double`; `%lf` is `%f`.
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' if len.is_empty() || len == "l" => {
                Scalar::Float { bits: 64 }
            }
            _ => return None,
        };
        if !lit.is_empty() {
            out.push(FormatPiece::Text(std::mem::take(&mut lit)));
        }
        out.push(FormatPiece::Conv { conv, arg, spec });
    }
    if !lit.is_empty() {
        out.push(FormatPiece::Text(lit));
    }
    Some(out)
}

/// The largest width or precision agx prints (a larger one is rejected rather than
/// allocated).
const MAX_WIDTH: u32 = 4096;

/// The flags, width and precision after a `%`.
fn parse_spec(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<printf::ConvSpec> {
    let mut spec = printf::ConvSpec::default();
    while let Some(&f) = chars.peek() {
        match f {
            '-' => spec.minus = true,
            '+' => spec.plus = true,
            ' ' => spec.space = true,
            '#' => spec.alt = true,
            '0' => spec.zero = true,
            _ => break,
        }
        chars.next();
    }
    spec.width = format_number(chars)?;
    if chars.peek() == Some(&'.') {
        chars.next();
        spec.precision = Some(format_number(chars)?.unwrap_or(0));
    }
    Some(spec)
}

/// A decimal width or precision, `Some(None)` when absent; `None` for `*` or one over
/// [`MAX_WIDTH`].
fn format_number(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Option<u32>> {
    let mut n: Option<u32> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        let v = n.unwrap_or(0) * 10 + d;
        if v > MAX_WIDTH {
            return None;
        }
        n = Some(v);
        chars.next();
    }
    if chars.peek() == Some(&'*') {
        return None;
    }
    Some(n)
}

/// The width in bits of an integer conversion with length modifier `len`, shared by the
/// printf and scanf formats ([`super::scanf`]); `None` for a modifier of no integer type.
/// `q` and `L` (a BSD/glibc synonym of `ll`) occur only in scanf formats: printf's parser
/// does not collect them.
pub(super) fn int_length_bits(len: &str, dm: DataModel) -> Option<u8> {
    Some(match len {
        "" => 32,
        "hh" => 8,
        "h" => 16,
        "l" | "z" | "t" => dm.pointer_bits(),
        "ll" | "q" | "L" | "j" => 64,
        _ => return None,
    })
}

impl Lowerer<'_> {
    /// Turns every call of a function that never got a body into havoc of its result
    /// (warning once per function), or rejects it when havoc would be unsound: a result
    /// that is a pointer, or pointer arguments the function could write through.
    pub(crate) fn resolve_externals(&mut self) -> LResult<()> {
        let undefined: Vec<bool> = self.functions.iter().map(|f| !f.defined).collect();
        for fi in 0..self.functions.len() {
            for bi in 0..self.functions[fi].ir.blocks.len() {
                for si in 0..self.functions[fi].ir.blocks[bi].stmts.len() {
                    let stmt = &self.functions[fi].ir.blocks[bi].stmts[si];
                    let StmtKind::Call {
                        dst,
                        callee: Callee::Direct(target),
                        args,
                    } = &stmt.kind
                    else {
                        continue;
                    };
                    if !undefined[target.index()] {
                        continue;
                    }
                    if let Some(e) = self.deferred.remove(target) {
                        return Err(e);
                    }
                    let (dst, target, span) = (*dst, *target, stmt.span);
                    let regs = &self.functions[fi].ir.regs;
                    let read_only = &self.functions[target.index()].read_only;
                    // A variadic call's last argument is its area of extra arguments
                    // (see `expr::varargs`): a pointer only if one of them is.
                    let variadic = self.functions[target.index()].ty.variadic;
                    let (args, area) = match args.split_last() {
                        Some((area, fixed)) if variadic => (fixed, Some(area)),
                        _ => (args.as_slice(), None),
                    };
                    let area_has_pointer = match area {
                        Some(Operand::Addr { obj, .. }) => self.objects[obj.index()]
                            .layout
                            .iter()
                            .any(|(_, s)| *s == Scalar::Ptr),
                        _ => false,
                    };
                    let passes_pointer = area_has_pointer
                        || args.iter().enumerate().any(|(i, a)| {
                            let pointer = match a {
                                Operand::Reg(r) => regs[r.index()].ty == Scalar::Ptr,
                                Operand::Int { .. } => false,
                                Operand::Null | Operand::Addr { .. } | Operand::Func(_) => true,
                            };
                            pointer && !read_only.get(i).copied().unwrap_or(false)
                        });
                    let has_ptr_arg = passes_pointer || self.external_takes_pointer(target);
                    let replacement = self.havoc_for(target, dst, has_ptr_arg, span)?;
                    self.functions[fi].ir.blocks[bi].stmts[si].kind = replacement;
                }
            }
        }
        Ok(())
    }

    /// Whether the declared parameters of an external function include a pointer it may
    /// write through (not a read-only `const T *`).
    fn external_takes_pointer(&self, target: FuncId) -> bool {
        let entry = &self.functions[target.index()];
        let ty: &FuncType = &entry.ty;
        ty.params
            .iter()
            .enumerate()
            .any(|(i, p)| p.is_pointer() && !entry.read_only.get(i).copied().unwrap_or(false))
    }

    fn havoc_for(
        &mut self,
        target: FuncId,
        dst: Option<RegId>,
        has_ptr_arg: bool,
        span: Span,
    ) -> LResult<StmtKind> {
        let name = self.functions[target.index()].ir.name.clone();
        let ret = self.functions[target.index()].ty.ret.clone();
        let at = crate::frontend::SourceLoc {
            file: self.unit.map.files()[span.file.index()].clone(),
            line: span.line,
        };
        if ret.is_pointer() {
            return Err(crate::frontend::FrontendError::Unsupported {
                at,
                construct: format!("call of external function `{name}` returning a pointer"),
            });
        }
        if has_ptr_arg && !HARMLESS.contains(&name.as_str()) {
            return Err(crate::frontend::FrontendError::Unsupported {
                at,
                construct: format!(
                    "call of external function `{name}` that may write memory through its pointer arguments"
                ),
            });
        }
        if self.warned_external(&name) {
            self.warnings.push(Diagnostic {
                span,
                message: format!(
                    "external function `{name}` has no body: its result is treated as nondeterministic"
                ),
            });
        }
        Ok(StmtKind::Havoc {
            dst,
            ty: ret.scalar().unwrap_or(Scalar::I32),
            function: name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convs(text: &str) -> Option<Vec<(char, Scalar, String)>> {
        let pieces = parse_format(text, DataModel::Lp64)?;
        Some(
            pieces
                .into_iter()
                .filter_map(|p| match p {
                    FormatPiece::Conv { conv, arg, spec } => Some((conv, arg, spec.to_string())),
                    FormatPiece::Text(_) => None,
                })
                .collect(),
        )
    }

    #[test]
    fn formats_read_flags_width_precision_and_doubles() {
        let f64 = Scalar::Float { bits: 64 };
        assert_eq!(
            convs("%-08.3f|%lg|%+ #5ld|%.2s|%E"),
            Some(vec![
                ('f', f64, "-08.3".into()),
                ('g', f64, String::new()),
                ('d', Scalar::I64, "+ #5".into()),
                ('s', Scalar::Ptr, ".2".into()),
                ('E', f64, String::new()),
            ])
        );
        assert_eq!(convs("%.f"), Some(vec![('f', f64, ".0".into())]));
    }

    #[test]
    fn formats_agx_cannot_print_are_refused() {
        for text in [
            "%*d", "%.*f", "%Lf", "%a", "%n", "%.3c", "%.2p", "%5000d", "%hf",
        ] {
            assert_eq!(convs(text), None, "{text}");
        }
    }
}
