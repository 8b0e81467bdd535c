"""MIR as text, in the style of rustc's and BAML's MIR dumps (`ingot mir`)."""

from __future__ import annotations

from ingot.mir import ir


def operand(op: ir.Operand) -> str:
    if isinstance(op, ir.Copy):
        return f"copy _{op.local}"
    return "const " + constant(op.value)


def constant(v: object) -> str:
    if isinstance(v, ir.FnConst):
        return f"fn {v.name}"
    if isinstance(v, ir.VariantConst):
        return f"{v.enum}.{v.variant}"
    if isinstance(v, ir.GlobalConst):
        return f"global {v.name}"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v}_i64"
    if isinstance(v, float):
        return f"{v!r}_f64"
    if isinstance(v, str):
        return '"' + v.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    return repr(v)


def place(p: ir.Place) -> str:
    if isinstance(p, ir.LocalPlace):
        return f"_{p.local}"
    if isinstance(p, ir.FieldPlace):
        return f"_{p.base}.{p.name}"
    return f"_{p.base}[_{p.index}]"


def rvalue(rv: ir.Rvalue) -> str:
    if isinstance(rv, ir.Use):
        return operand(rv.operand)
    if isinstance(rv, ir.BinaryOp):
        return f"{operand(rv.left)} {rv.op.value} {operand(rv.right)}"
    if isinstance(rv, ir.UnaryOp):
        if rv.op in (ir.UnOp.TRUTHY, ir.UnOp.IS_PANIC):
            return f"{rv.op.value}({operand(rv.operand)})"
        return f"{rv.op.value}{operand(rv.operand)}"
    if isinstance(rv, ir.ReadField):
        return f"({operand(rv.base)}).{rv.name}"
    if isinstance(rv, ir.ReadIndex):
        return f"({operand(rv.base)})[{operand(rv.index)}]"
    if isinstance(rv, ir.Len):
        return f"len({operand(rv.base)})"
    if isinstance(rv, ir.MakeArray):
        return "[" + ", ".join(operand(o) for o in rv.elements) + "]"
    if isinstance(rv, ir.MakeMap):
        return "{" + ", ".join(f"{operand(k)}: {operand(v)}" for k, v in rv.entries) + "}"
    if isinstance(rv, ir.MakeInstance):
        return f"{rv.cls} {{ " + ", ".join(operand(o) for o in rv.fields) + " }"
    if isinstance(rv, ir.MakeClosure):
        return f"make_closure {rv.function}(" + ", ".join(f"_{c}" for c in rv.captures) + ")"
    if isinstance(rv, ir.BoundMethod):
        return f"bound {rv.function}({operand(rv.receiver)})"
    if isinstance(rv, ir.IsType):
        return f"is_type({operand(rv.operand)}, {rv.ty})"
    if isinstance(rv, ir.Format):
        return "format(" + ", ".join(constant(p) if isinstance(p, str) else operand(p) for p in rv.parts) + ")"
    raise AssertionError(rv)


def statement(s: ir.Statement) -> str:
    if isinstance(s, ir.Assign):
        return f"{place(s.place)} = {rvalue(s.value)};"
    return f"storage_live(_{s.local}{', carry' if s.carry else ''});"


def callee(c: ir.Callee) -> str:
    if isinstance(c, ir.FnCallee):
        return f"fn {c.name}"
    if isinstance(c, ir.BuiltinCallee):
        return f"builtin {c.key}"
    return operand(c.callee)


def terminator(t: ir.Terminator | None) -> str:
    if t is None:
        return "// unterminated"
    if isinstance(t, ir.Goto):
        return f"goto -> bb{t.target};"
    if isinstance(t, ir.Branch):
        return f"branch {operand(t.cond)} -> [bb{t.then_bb}, bb{t.else_bb}];"
    if isinstance(t, ir.Switch):
        arms = ", ".join(f"{constant(k)}: bb{b}" for k, b in t.arms)
        return f"switch {operand(t.value)} [{arms}, otherwise: bb{t.otherwise}];"
    if isinstance(t, ir.Return):
        return "return;"
    if isinstance(t, ir.Call):
        args = ", ".join(operand(a) for a in t.args)
        return f"_{t.dest} = call {callee(t.callee)}({args}) -> bb{t.target};"
    if isinstance(t, ir.Throw):
        return f"throw {operand(t.value)};"
    if isinstance(t, ir.Rethrow):
        return f"rethrow {operand(t.value)};"
    return "unreachable;"


def function(fn: ir.MirFunction) -> str:
    params = ", ".join(f"_{i + 1}: {fn.locals[i + 1].ty}" for i in range(fn.arity))
    lines = [f"fn {fn.name}({params}) -> {fn.ret} {{"]
    if fn.kind is ir.FnKind.LLM:
        lines.append("    // LLM function: the body is a prompt, run by the LLM client")
    lines.append("    // Locals:")
    for i, decl in enumerate(fn.locals):
        notes = []
        if i == 0:
            notes.append("return")
        elif decl.name:
            notes.append(decl.name)
        if 0 < i <= fn.arity:
            notes.append("param")
        if decl.captured:
            notes.append("[captured]")
        if decl.capture_index is not None:
            notes.append(f"[capture {decl.capture_index}]")
        lines.append(f"    let _{i}: {decl.ty}" + (" // " + " // ".join(notes) if notes else ""))
    for r in fn.catch_regions:
        blocks = ", ".join(f"bb{b}" for b in sorted(r.blocks))
        lines.append(f"    // catch [{blocks}] -> bb{r.handler} (error in _{r.error_local})")
    for i, block in enumerate(fn.blocks):
        lines.append("")
        lines.append(f"    bb{i}: {{")
        for s in block.statements:
            lines.append(f"        {statement(s)}")
        lines.append(f"        {terminator(block.terminator)}")
        lines.append("    }")
    lines.append("}")
    return "\n".join(lines)


def program(prog: ir.MirProgram, only: str | None = None, include_synthetic: bool = False) -> str:
    out = []
    for name, fn in prog.functions.items():
        if only is not None:
            if name != only and not name.startswith(only + ".$lambda"):
                continue
        elif fn.synthetic and not include_synthetic and not name.startswith("$const"):
            if ".$lambda" not in name:
                continue
        out.append(function(fn))
    return "\n\n".join(out)
