//! The crepe twin of [`crate::points_to`]: the same rules, written for the crepe engine,
//! so that `agx rules --compare` and the differential tests can check that both engines
//! compute the same points-to sets and call graph.

use crate::points_to::{shift, Inputs, PointsTo};
use analysis::facts::{Facts, FuncId, Obj, StmtId, Var, ANY_OFFSET};
use crepe::crepe;

crepe! {
    @input struct BaseOffset(i64);
    @input struct AddrOf(Var, Obj, i64);
    @input struct Alloc(Var, Obj);
    @input struct AssignCopy(Var, Var);
    @input struct AssignOffset(Var, Var, i64);
    @input struct AssignAny(Var, Var);
    @input struct Load(Var, Var);
    @input struct Store(Var, Var);
    @input struct ObjInit(Obj, i64, Obj, i64);
    @input struct ObjSize(Obj, i64);
    @input struct FuncObj(Obj, FuncId);
    @input struct Call(StmtId, FuncId);
    @input struct ICall(StmtId, Var);
    @input struct ActualArg(StmtId, u32, Var);
    @input struct FormalParam(FuncId, u32, Var);
    @input struct CallResult(StmtId, Var);
    @input struct Returns(FuncId, Var);
    @input struct ThreadCreate(StmtId, Var, Var);
    @input struct JoinResult(Var);
    @input struct ThreadExit(Var);

    @output struct Pt(Var, Obj, i64);
    @output struct Cpt(Obj, i64, Obj, i64);
    @output struct CallEdge(StmtId, FuncId);
    @output struct ThreadEdge(StmtId, FuncId);

    Pt(v, o, k) <- AddrOf(v, o, k);
    Pt(v, o, z) <- Alloc(v, o), BaseOffset(z);
    Pt(d, o, k) <- AssignCopy(d, s), Pt(s, o, k);
    Pt(d, o, shift(k, delta, n)) <- AssignOffset(d, s, delta), Pt(s, o, k), ObjSize(o, n);
    Pt(d, o, ANY_OFFSET) <- AssignAny(d, s), Pt(s, o, _);

    Cpt(o, k, t, j) <- ObjInit(o, k, t, j);
    Cpt(o, k, t, j) <- Store(a, v), Pt(a, o, k), Pt(v, t, j);

    Pt(d, t, j) <- Load(d, a), Pt(a, o, k), Cpt(o, k, t, j);
    Pt(d, t, j) <- Load(d, a), Pt(a, o, k), (k != ANY_OFFSET), Cpt(o, any, t, j),
        (any == ANY_OFFSET);
    Pt(d, t, j) <- Load(d, a), Pt(a, o, any), (any == ANY_OFFSET), Cpt(o, _, t, j);

    CallEdge(c, f) <- Call(c, f);
    CallEdge(c, f) <- ICall(c, p), Pt(p, o, _), FuncObj(o, f);
    Pt(p, o, k) <- CallEdge(c, f), ActualArg(c, i, a), FormalParam(f, i, p), Pt(a, o, k);
    Pt(d, o, k) <- CallEdge(c, f), CallResult(c, d), Returns(f, v), Pt(v, o, k);

    ThreadEdge(c, f) <- ThreadCreate(c, p, _), Pt(p, o, _), FuncObj(o, f);
    Pt(p, o, k) <- ThreadEdge(c, f), ThreadCreate(c, _, a), FormalParam(f, zero, p),
        (zero == 0), Pt(a, o, k);
    Cpt(o, k, t, j) <- JoinResult(r), Pt(r, o, k), ThreadExit(v), Pt(v, t, j);
    Cpt(o, k, t, j) <- JoinResult(r), Pt(r, o, k), ThreadEdge(_, f), Returns(f, v), Pt(v, t, j);
}

/// Runs the field-sensitive points-to rules on crepe.
pub fn run(facts: &Facts) -> PointsTo {
    let i = Inputs::new(facts, false);
    let mut rt = Crepe::new();
    rt.extend([BaseOffset(i.off(0))]);
    rt.extend(i.addr_of.iter().map(|&(v, o, k)| AddrOf(v, o, k)));
    rt.extend(i.alloc.iter().map(|&(v, o)| Alloc(v, o)));
    rt.extend(i.assign_copy.iter().map(|&(d, s)| AssignCopy(d, s)));
    rt.extend(
        i.assign_offset
            .iter()
            .map(|&(d, s, k)| AssignOffset(d, s, k)),
    );
    rt.extend(i.assign_any.iter().map(|&(d, s)| AssignAny(d, s)));
    rt.extend(i.load.iter().map(|&(d, a)| Load(d, a)));
    rt.extend(i.store.iter().map(|&(a, v)| Store(a, v)));
    rt.extend(i.obj_init.iter().map(|&(o, k, t, j)| ObjInit(o, k, t, j)));
    rt.extend(i.obj_size.iter().map(|&(o, n)| ObjSize(o, n)));
    rt.extend(i.func_obj.iter().map(|&(o, f)| FuncObj(o, f)));
    rt.extend(i.call.iter().map(|&(c, f)| Call(c, f)));
    rt.extend(i.icall.iter().map(|&(c, p)| ICall(c, p)));
    rt.extend(i.actual_arg.iter().map(|&(c, n, a)| ActualArg(c, n, a)));
    rt.extend(i.formal_param.iter().map(|&(f, n, p)| FormalParam(f, n, p)));
    rt.extend(i.call_result.iter().map(|&(c, d)| CallResult(c, d)));
    rt.extend(i.returns.iter().map(|&(f, v)| Returns(f, v)));
    rt.extend(
        i.thread_create
            .iter()
            .map(|&(c, p, a)| ThreadCreate(c, p, a)),
    );
    rt.extend(i.join_result.iter().map(|&(r,)| JoinResult(r)));
    rt.extend(i.thread_exit.iter().map(|&(v,)| ThreadExit(v)));
    let (pt, cpt, calls, threads) = rt.run();
    PointsTo::from_parts(
        pt.into_iter().map(|Pt(v, o, k)| (v, o, k)).collect(),
        cpt.into_iter()
            .map(|Cpt(o, k, t, j)| (o, k, t, j))
            .collect(),
        calls.into_iter().map(|CallEdge(c, f)| (c, f)).collect(),
        threads.into_iter().map(|ThreadEdge(c, f)| (c, f)).collect(),
    )
}
