//! Final passes over the lowered program: jump threading through empty blocks, and
//! dropping what the program never uses (the hundreds of declarations system headers
//! bring), with ids renumbered densely.

use crate::ir::*;

/// Makes every jump to an empty `goto`-only block jump to its final target, then drops
/// the blocks no longer reachable.
pub(super) fn thread_jumps(f: &mut Function) {
    if f.blocks.is_empty() {
        return;
    }
    let forward: Vec<Option<BlockId>> = f
        .blocks
        .iter()
        .map(|b| match (&b.term.kind, b.stmts.is_empty()) {
            (TermKind::Goto(t), true) => Some(*t),
            _ => None,
        })
        .collect();
    // The final target of each block, found once per block (following every chain anew
    // was quadratic in the nesting of `if`s, whose join blocks chain empty gotos).
    let n = forward.len();
    let mut resolved: Vec<Option<BlockId>> = vec![None; n];
    let mut on_path = vec![false; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut b = BlockId(start as u32);
        let end = loop {
            if let Some(t) = resolved[b.index()] {
                break t;
            }
            match forward[b.index()] {
                // A cycle of empty gotos (`L: goto L;`) ends at the block that closes it.
                Some(next) if next != b && !on_path[next.index()] => {
                    on_path[b.index()] = true;
                    path.push(b);
                    b = next;
                }
                _ => break b,
            }
        };
        resolved[b.index()] = Some(end);
        for p in path {
            on_path[p.index()] = false;
            resolved[p.index()] = Some(end);
        }
    }
    let resolve = |b: BlockId| resolved[b.index()].unwrap_or(b);
    for b in f.blocks.iter_mut() {
        match &mut b.term.kind {
            TermKind::Goto(t) => *t = resolve(*t),
            TermKind::Branch {
                then_bb, else_bb, ..
            } => {
                *then_bb = resolve(*then_bb);
                *else_bb = resolve(*else_bb);
            }
            _ => {}
        }
    }
    // The entry stays block 0 even when it is an empty goto.
    let mut reachable = vec![false; f.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut reachable[b], true) {
            continue;
        }
        stack.extend(f.blocks[b].term.kind.successors().iter().map(|s| s.index()));
    }
    let mut new_id = vec![BlockId(u32::MAX); f.blocks.len()];
    let mut next = 0;
    for (i, r) in reachable.iter().enumerate() {
        if *r {
            new_id[i] = BlockId(next);
            next += 1;
        }
    }
    let old = std::mem::take(&mut f.blocks);
    for (i, mut b) in old.into_iter().enumerate() {
        if !reachable[i] {
            continue;
        }
        b.id = new_id[i];
        match &mut b.term.kind {
            TermKind::Goto(t) => *t = new_id[t.index()],
            TermKind::Branch {
                then_bb, else_bb, ..
            } => {
                *then_bb = new_id[then_bb.index()];
                *else_bb = new_id[else_bb.index()];
            }
            _ => {}
        }
        f.blocks.push(b);
    }
}

/// Keeps the defined functions, the functions and objects they reference (transitively
/// through static initializers), and the globals of non-system files; renumbers ids.
pub(super) fn drop_unused(
    objects: Vec<Object>,
    functions: Vec<Function>,
    main: FuncId,
    files: &[String],
) -> (Vec<Object>, Vec<Function>, FuncId) {
    let mut keep_fn = vec![false; functions.len()];
    let mut keep_obj = vec![false; objects.len()];
    let mut work_fn: Vec<FuncId> = Vec::new();
    let mut work_obj: Vec<ObjId> = Vec::new();
    for f in &functions {
        if f.is_defined() {
            work_fn.push(f.id);
        }
    }
    for o in &objects {
        let system = files[o.span.file.index()].starts_with("/usr/");
        if matches!(o.kind, ObjectKind::Global | ObjectKind::ThreadLocal) && !system {
            work_obj.push(o.id);
        }
    }
    let mark = |op: &Operand, wf: &mut Vec<FuncId>, wo: &mut Vec<ObjId>| match op {
        Operand::Addr { obj, .. } => wo.push(*obj),
        Operand::Func(id) => wf.push(*id),
        _ => {}
    };
    while !work_fn.is_empty() || !work_obj.is_empty() {
        while let Some(id) = work_fn.pop() {
            if std::mem::replace(&mut keep_fn[id.index()], true) {
                continue;
            }
            let f = &functions[id.index()];
            work_obj.extend(f.slots.iter().copied());
            for b in &f.blocks {
                for s in &b.stmts {
                    if let StmtKind::Call {
                        callee: Callee::Direct(t),
                        ..
                    } = &s.kind
                    {
                        work_fn.push(*t);
                    }
                    for op in s.kind.operands() {
                        mark(op, &mut work_fn, &mut work_obj);
                    }
                }
                let mut term = b.term.kind.clone();
                term.for_each_operand_mut(&mut |op| mark(op, &mut work_fn, &mut work_obj));
            }
        }
        while let Some(id) = work_obj.pop() {
            if std::mem::replace(&mut keep_obj[id.index()], true) {
                continue;
            }
            for c in &objects[id.index()].init {
                mark(&c.value, &mut work_fn, &mut work_obj);
            }
        }
    }
    let fn_map = dense(&keep_fn);
    let obj_map = dense(&keep_obj);
    let remap = |op: &mut Operand| match op {
        Operand::Addr { obj, .. } => *obj = ObjId(obj_map[obj.index()]),
        Operand::Func(id) => *id = FuncId(fn_map[id.index()]),
        _ => {}
    };
    let objects: Vec<Object> = objects
        .into_iter()
        .filter(|o| keep_obj[o.id.index()])
        .map(|mut o| {
            o.id = ObjId(obj_map[o.id.index()]);
            if let ObjectKind::StackSlot { func } = &mut o.kind {
                *func = FuncId(fn_map[func.index()]);
            }
            o.init.iter_mut().for_each(|c| remap(&mut c.value));
            o
        })
        .collect();
    let functions: Vec<Function> = functions
        .into_iter()
        .filter(|f| keep_fn[f.id.index()])
        .map(|mut f| {
            f.id = FuncId(fn_map[f.id.index()]);
            f.slots = f.slots.iter().map(|s| ObjId(obj_map[s.index()])).collect();
            for b in f.blocks.iter_mut() {
                for s in b.stmts.iter_mut() {
                    if let StmtKind::Call {
                        callee: Callee::Direct(t),
                        ..
                    } = &mut s.kind
                    {
                        *t = FuncId(fn_map[t.index()]);
                    }
                    s.kind.for_each_operand_mut(&mut |op| remap(op));
                }
                b.term.kind.for_each_operand_mut(&mut |op| remap(op));
            }
            f
        })
        .collect();
    (objects, functions, FuncId(fn_map[main.index()]))
}

fn dense(keep: &[bool]) -> Vec<u32> {
    let mut next = 0;
    keep.iter()
        .map(|&k| {
            let id = next;
            if k {
                next += 1;
            }
            id
        })
        .collect()
}
