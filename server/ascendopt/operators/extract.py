"""Read the parts of an operator out of parsed C++: kernel entry, tiling program,
tiling-data fields, OpDef declarations and constants."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from ascendopt.operators.cpp_source import CppSource, Token, last_name, split_top_level
from ascendopt.operators.model import (
    Constant,
    KernelEntry,
    OpDefAttr,
    OpDefInfo,
    OpDefTensor,
    Param,
    ParamRole,
    Side,
    TilingField,
    TilingProgram,
)

_OUTPUT_HINTS = ("out", "dst", "result", "res")


def kernel_entries(src: CppSource) -> list[tuple[str, Node]]:
    """Functions defined `__global__` (the NPU entry points): `extern "C"` or not, templated, with
    `__attribute__`s, inside `extern "C" {…}` or `#if` guards."""
    return [(name, fn) for name, fn in src.functions() if "__global__" in entry_head(src, fn)]


def entry_head(src: CppSource, fn: Node) -> str:
    """The original text in front of a definition's body, back to the previous sibling: it holds the
    qualifiers that were blanked for parsing (`extern "C" __global__ __aicore__ void f(…)`)."""
    body = fn.child_by_field_name("body")
    prev = fn.prev_sibling
    start = prev.end_byte if prev is not None else (fn.parent.start_byte if fn.parent else fn.start_byte)
    owner = fn.parent
    if owner is not None and owner.type == "declaration_list" and owner.parent is not None:
        owner = owner.parent  # extern "C" { … }
    if owner is not None and owner.type in ("linkage_specification", "template_declaration"):
        start = min(start, owner.start_byte)
    end = body.start_byte if body is not None else fn.end_byte
    return src.data[start:end].decode("utf-8", errors="replace")


def entry_linkage(src: CppSource, fn: Node) -> tuple[bool, str | None]:
    """(declared extern "C", the template parameter list if templated)."""
    owner = fn.parent
    if owner is not None and owner.type == "declaration_list" and owner.parent is not None:
        owner = owner.parent
    extern_c = owner is not None and owner.type == "linkage_specification"
    template = None
    if fn.parent is not None and fn.parent.type == "template_declaration":
        params = fn.parent.child_by_field_name("parameters")
        template = src.text_of(params) if params is not None else "<>"
    return extern_c, template


def kernel_entry(
    src: CppSource, fn: Node, name: str, inputs: Iterable[str] = (), outputs: Iterable[str] = ()
) -> KernelEntry:
    """Describe an entry's parameters; roles come from the OpDef/spec names when known."""
    inputs, outputs = list(inputs), list(outputs)
    params: list[tuple[str, str]] = []
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    for p in plist.named_children if plist is not None else []:
        if p.type != "parameter_declaration":
            continue
        pname = p.child_by_field_name("declarator")
        ptype = p.child_by_field_name("type")
        name_text = src.text_of(pname).lstrip("*& ") if pname is not None else ""
        type_text = " ".join(src.text_of(ptype).split()) if ptype is not None else ""
        params.append((name_text, type_text))
    roles = _roles([n for n, _ in params], inputs, outputs)
    extern_c, template = entry_linkage(src, fn)
    whole = fn.parent if fn.parent is not None and fn.parent.type in _ENTRY_OWNERS else fn
    return KernelEntry(
        name=name,
        params=[Param(name=n, type=t, role=r) for (n, t), r in zip(params, roles, strict=True)],
        range=src.range_of(whole),
        extern_c=extern_c,
        template=template,
    )


_ENTRY_OWNERS = ("linkage_specification", "template_declaration")


def _roles(names: list[str], inputs: list[str], outputs: list[str]) -> list[ParamRole]:
    roles: list[ParamRole] = []
    for i, n in enumerate(names):
        low = n.lower()
        tail = len(names) - i
        if low in ("tiling", "tilingdata", "tiling_data", "tiling_gm") or (tail == 1 and "tiling" in low):
            roles.append("tiling")
        elif low in ("workspace", "usrworkspace", "user_workspace", "workspace_gm") or (
            tail <= 2 and "workspace" in low
        ):
            roles.append("workspace")
        elif n in outputs:
            roles.append("output")
        elif n in inputs:
            roles.append("input")
        elif outputs or inputs:
            # Names differ from the declaration (kernels often rename): keep declaration order.
            roles.append("input" if sum(r == "input" for r in roles) < len(inputs) else "output")
        else:
            roles.append("output" if low.startswith(_OUTPUT_HINTS) else "input")
    data = [i for i, r in enumerate(roles) if r in ("input", "output")]
    if (inputs or outputs) and len(data) == len(inputs) + len(outputs):
        # CANN binds the entry's data parameters by position (OpDef inputs, then outputs), whatever
        # they are called: `add_example(x, y, z)` with OpDef x1, x2 → y has `y` as its second input.
        for k, i in enumerate(data):
            roles[i] = "input" if k < len(inputs) else "output"
    if "output" not in roles:
        # With no declaration to go by, the last data parameter is the output.
        data = [i for i, r in enumerate(roles) if r == "input"]
        if len(data) > 1:
            roles[data[-1]] = "output"
    return roles


def tiling_program(src: CppSource, preferred: Iterable[str] = ("TilingFunc",)) -> TilingProgram | None:
    """The function that fills tiling data: registered/named as such, or the one calling SetBlockDim."""
    best: tuple[int, str, Node, set[str]] | None = None
    names = set(preferred)
    for name, fn in src.functions():
        callees = {c.rsplit("->", 1)[-1].rsplit(".", 1)[-1] for c, _ in src.calls(fn)}
        score = (
            (4 if name.rsplit("::", 1)[-1] in names else 0)
            + (2 if "SetBlockDim" in callees else 0)
            + (1 if callees & {"SaveToBuffer", "GetTilingData", "GetRawTilingData", "SetTilingKey"} else 0)
        )
        if score >= 2 and (best is None or score > best[0]):
            best = (score, name, fn, callees)
    if best is None:
        return None
    _, name, fn, callees = best
    return TilingProgram(
        function=name,
        range=src.range_of(fn),
        sets_block_dim="SetBlockDim" in callees,
        sets_tiling_key="SetTilingKey" in callees,
    )


def registered_tiling_functions(src: CppSource) -> list[str]:
    """Names passed to `.SetTiling(fn)` or `IMPL_OP_OPTILING(Op).Tiling(fn)`."""
    out = []
    toks = src.tokens()
    for i, t in enumerate(toks):
        if t.text in ("SetTiling", "Tiling") and i + 2 < len(toks) and toks[i + 1].text == "(":
            j = i + 2
            parts = []
            while j < len(toks) and toks[j].text != ")":
                parts.append(toks[j].text)
                j += 1
            if parts:
                out.append("".join(parts).rsplit("::", 1)[-1])
    return out


def macro_tiling_fields(
    src: CppSource, op_type: str | None = None
) -> tuple[str | None, list[TilingField], list[tuple[str, str]]]:
    """msOpGen tiling header: (struct name, fields, [(op type, struct)] registrations), read by tokens.
    A header defining several structs: the one registered for `op_type` (a grad operator registering
    its sibling's struct), else the last one with every field, as before."""
    toks = src.tokens()
    struct: str | None = None
    fields: list[TilingField] = []
    per_struct: dict[str, list[TilingField]] = {}
    registrations: list[tuple[str, str]] = []
    i = 0
    while i < len(toks):
        t = toks[i].text
        if t in _FIELD_MACROS or t in ("BEGIN_TILING_DATA_DEF", "REGISTER_TILING_DATA_CLASS"):
            args, end = call_args(toks, i + 1)
            if t == "BEGIN_TILING_DATA_DEF" and args:
                struct = args[0]
                per_struct.setdefault(struct, [])
            elif t == "REGISTER_TILING_DATA_CLASS" and len(args) == 2:
                registrations.append((args[0], args[1]))
            elif t in _FIELD_MACROS and len(args) == _FIELD_MACROS[t]:
                name_tok = end - 1  # the last argument's token
                field = TilingField(
                    name=args[-1],
                    type=args[0],
                    array_length=args[1] if t == "TILING_DATA_FIELD_DEF_ARR" else None,
                    range=src.range_of_bytes(toks[i].node.start_byte, toks[name_tok].node.end_byte + 1),
                )
                fields.append(field)
                if struct is not None:
                    per_struct[struct].append(field)
            i = end
        i += 1
    chosen = next((s for op, s in registrations if op == op_type), None)
    if len(per_struct) > 1 and chosen in per_struct:
        return chosen, per_struct[chosen], registrations
    return struct, fields, registrations


_FIELD_MACROS = {
    "TILING_DATA_FIELD_DEF": 2,
    "TILING_DATA_FIELD_DEF_ARR": 3,
    "TILING_DATA_FIELD_DEF_STRUCT": 2,
}


def call_args(toks: list[Token], start: int) -> tuple[list[str], int]:
    """Arguments of `(a, b c, d)` starting at toks[start] == '(' → (['a', 'b c', 'd'], index of ')');
    commas inside (), [] or {} do not split."""
    if start >= len(toks) or toks[start].text != "(":
        return [], start
    args: list[str] = []
    cur: list[str] = []
    depth, j = 0, start + 1
    while j < len(toks):
        t = toks[j].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            if depth == 0:
                break
            depth -= 1
        if t == "," and depth == 0:
            args.append(" ".join(cur))
            cur = []
        else:
            cur.append(t)
        j += 1
    if cur:
        args.append(" ".join(cur))
    return args, j


def struct_tiling_fields(
    src: CppSource, struct_name: str | None = None
) -> tuple[str | None, list[TilingField]]:
    """CANN open-repo style: a plain struct in `<op>_tiling_data.h`."""
    for n in src.walk():
        if n.type != "struct_specifier":
            continue
        name = n.child_by_field_name("name")
        body = n.child_by_field_name("body")
        if name is None or body is None:
            continue
        sname = src.text_of(name)
        if struct_name and sname != struct_name:
            continue
        fields = []
        for f in body.named_children:
            if f.type != "field_declaration":
                continue
            ftype = f.child_by_field_name("type")
            decl = f.child_by_field_name("declarator")
            if ftype is None or decl is None:
                continue
            length = None
            if decl.type == "array_declarator":
                size = decl.child_by_field_name("size")
                length = src.text_of(size) if size is not None else None
                decl = decl.child_by_field_name("declarator") or decl
            fields.append(
                TilingField(
                    name=src.text_of(decl),
                    type=src.text_of(ftype),
                    array_length=length,
                    range=src.range_of(f),
                )
            )
        if fields:
            return sname, fields
    return None, []


def opdef_info(src: CppSource) -> OpDefInfo | None:
    """`class X : public OpDef { … this->Input("x").DataType({…}) … }` and `OP_ADD(X)`."""
    op_type = None
    for n in src.walk():
        if n.type == "class_specifier":
            base = next((c for c in n.children if c.type == "base_class_clause"), None)
            name = n.child_by_field_name("name")
            if base is not None and name is not None and "OpDef" in src.text_of(base):
                op_type = src.text_of(name)
                break
    if op_type is None:
        return None
    info = OpDefInfo(op_type=op_type)
    toks = src.tokens()
    variables = _dtype_variables(toks)
    for i, t in enumerate(toks):
        if t.text in ("Input", "Output", "Attr") and i > 0 and toks[i - 1].text == "->":
            args, end = call_args(toks, i + 1)
            if not args:
                continue
            tname = args[0].strip('" ')
            if t.text == "Attr":
                info.attrs.append(_attr(toks, end, tname, t.node.start_point[0] + 1))
                continue
            dtypes = _chain_dtypes(toks, end, variables)
            (info.inputs if t.text == "Input" else info.outputs).append(
                OpDefTensor(
                    name=tname,
                    dtypes=dtypes,
                    param_type=_chain_call_arg(toks, end, "ParamType") or "REQUIRED",
                    shape_depends_on_compute=_chain_call_arg(toks, end, "OutputShapeDependOnCompute")
                    is not None,
                )
            )
    return info


_ATTR_TYPES = {"Float": "float", "Int": "int", "Bool": "bool", "String": "str", "ListInt": "list_int"}


def _attr(toks: list[Token], start: int, name: str, line: int) -> OpDefAttr:
    """The `.Float(0.0)` / `.Int(3)` / `.Bool(true)` / `.String("mean")` / `.ListInt({1, 2})` of an attr's
    builder chain, up to its `;`."""
    j = start
    while j < len(toks) and toks[j].text != ";":
        kind = _ATTR_TYPES.get(toks[j].text)
        if kind is not None and j + 1 < len(toks) and toks[j + 1].text == "(":
            args, _ = call_args(toks, j + 1)
            text = args[0].replace(" ", "").rstrip("fF") if args else ""
            default: float | int | bool | str | list[int] | None = None
            try:
                if kind == "list_int":  # `.ListInt({1, 2})`
                    default = [int(v, 0) for v in text.strip("{}").split(",") if v] if args else None
                elif kind == "str":
                    default = _string_literal(toks, j + 2) if args else None
                elif kind == "bool":
                    default = text == "true"
                elif kind == "int":
                    default = int(text, 0)
                else:
                    default = float(text)
            except ValueError:
                default = None
            return OpDefAttr(name=name, type=kind, default=default, line=line)
        if toks[j].text in ("ListFloat", "ListBool", "ListListInt"):
            return OpDefAttr(name=name, line=line)
        j += 1
    return OpDefAttr(name=name, line=line)


def _string_literal(toks: list[Token], i: int) -> str | None:
    """The value of the plain C string literal (`"mean"`) that is the whole argument starting at
    toks[i], or None for anything else (a macro, a concatenation, an escape)."""
    node = toks[i].node.parent if i < len(toks) else None
    if node is None or node.type != "string_literal" or node.text is None:
        return None
    end = i
    while end < len(toks) and toks[end].node.parent == node:
        end += 1
    text = node.text.decode("utf-8", "replace")
    if end >= len(toks) or toks[end].text != ")" or "\\" in text or not text.startswith('"'):
        return None
    return text[1:-1]


def _chain_call_arg(toks: list[Token], start: int, method: str) -> str | None:
    """The argument of `.method(ARG)` in a builder chain that begins after `start`, up to its `;` ("" for
    `.method()`; None when the chain does not call it)."""
    j = start
    while j < len(toks) and toks[j].text != ";":
        if toks[j].text == method and j + 1 < len(toks) and toks[j + 1].text == "(":
            args, _ = call_args(toks, j + 1)
            return args[0].replace(" ", "") if args else ""
        j += 1
    return None


def _chain_dtypes(toks: list[Token], start: int, variables: dict[str, list[str]]) -> list[str]:
    """The `DataType({…})` list of a builder chain that begins after `start`, up to its `;`; a
    `DataType(name)` takes the variable's list (`_dtype_variables`), empty when it is not known."""
    j = start
    while j < len(toks) and toks[j].text != ";":
        if toks[j].text in ("DataType", "DataTypeList") and j + 1 < len(toks):
            args, _ = call_args(toks, j + 1)
            if len(args) == 1 and re.fullmatch(r"\w+", args[0]):
                return list(variables.get(args[0], []))
            inner = " ".join(args).replace("{", " ").replace("}", " ")
            return [a.split("::")[-1].strip() for a in inner.replace(" :: ", "::").split() if "DT_" in a]
        j += 1
    return []


_DT = r"(?:ge :: )?(DT_\w+)"


def _dtype_variables(toks: list[Token]) -> dict[str, list[str]]:
    """The `std::vector<ge::DataType>` variables an OpDef hands to `.DataType(name)`, in the forms
    CANN's OpDefs write them: `name = {ge::DT_A, …}` (an entry may be `F(ge::DT_A)`, F a
    function of the file made of `case ge::DT_A: return ge::DT_B;`), `name = other;`,
    `name(other.size(), ge::DT_A)`,
    and `std::for_each(other.cbegin(), other.cend(), [&name](…){name.push_back(F(dtype));})`."""
    text = " ".join(t.text for t in toks)
    maps: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"DataType (\w+) \( (?:const )?(?:ge :: )?DataType \w+ \) \{", text):
        # case labels falling through to one `return` all map to it ("" stands for `default`)
        table: dict[str, str] = {}
        pending: list[str] = []
        steps = (
            r"case (?:ge :: )?(?P<case>DT_\w+) :|(?P<default>default) :|"
            r"return (?:ge :: )?(?P<ret>DT_\w+) ;"
        )
        for step in re.finditer(steps, _braced(text, m.end() - 1)):
            if step["ret"]:
                table.update({label: step["ret"] for label in pending if label not in table})
                pending = []
            else:
                pending.append(step["case"] or "")
        if table:
            maps[m.group(1)] = table

    def mapped(fn: str | None, dt: str) -> str | None:
        if fn is None:
            return dt
        table = maps.get(fn, {})
        return table.get(dt, table.get(""))

    out: dict[str, list[str]] = {}
    decl = r"vector < (?:ge :: )?DataType > (\w+) "
    for m in re.finditer(decl + r"= \{", text):
        entries = []
        for entry in (e for e in split_top_level(_braced(text, m.end() - 1), "({") if e.strip()):
            call = re.fullmatch(r"(?:(\w+) \( )?" + _DT + r"(?: \))?", entry.strip())
            value = mapped(call.group(1), call.group(2)) if call else None
            if value is None:
                break
            entries.append(value)
        else:
            out[m.group(1)] = entries
    for m in re.finditer(decl + r"= (\w+) ;", text):  # a copy of another (`y_types = x_types;`)
        if m.group(2) in out:
            out[m.group(1)] = list(out[m.group(2)])
    for m in re.finditer(decl + r"\( (\w+) \. size \( \) , " + _DT + r" \)", text):
        if m.group(2) in out:
            out[m.group(1)] = [m.group(3)] * len(out[m.group(2)])
    each = (
        r"for_each \( (\w+) \. c?begin \( \) , \1 \. c?end \( \) , "
        r".*? (\w+) \. push_back \( (\w+) \( \w+ \) \)"
    )
    for m in re.finditer(each, text):
        src, name, fn = m.groups()
        values = [mapped(fn, d) for d in out.get(src, [])]
        if src in out and all(values):
            out[name] = [v for v in values if v]
    return out


def _braced(text: str, open_at: int) -> str:
    """The text inside the braces that open at `open_at` (to the text's end if they never close)."""
    depth = 0
    for k in range(open_at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[open_at + 1 : k]
    return text[open_at + 1 :]


def constants(src: CppSource, side: Side) -> list[Constant]:
    """`const`/`constexpr` declarations and `#define`s whose value is a number literal or integer
    arithmetic on literals (`24 * 1024`, as CANN writes its sizes)."""
    out: list[Constant] = []

    def add(ident: Node, ctype: Node | None, value: Node) -> None:
        out.append(
            Constant(
                name=src.text_of(ident),
                type=src.text_of(ctype) if ctype is not None else "",
                value=src.text_of(value),
                side=side,
                range=src.range_of(value),
            )
        )

    for n in src.walk():
        if n.type == "declaration":
            quals = {src.text_of(c) for c in n.children if c.type == "type_qualifier"}
            if not quals & {"const", "constexpr"}:
                continue
            for d in n.children_by_field_name("declarator"):
                if d.type != "init_declarator":
                    continue
                ident = d.child_by_field_name("declarator")
                value = d.child_by_field_name("value")
                if ident is not None and value is not None and _literal_arithmetic(value):
                    add(ident, n.child_by_field_name("type"), value)
        elif n.type == "field_declaration":
            # a class's `constexpr static uint8_t BUFFER_NUM = 2;` (ops-math is_inf keeps its queue depth so)
            kinds = ("type_qualifier", "storage_class_specifier")
            quals = {src.text_of(c) for c in n.children if c.type in kinds}
            ident, value = n.child_by_field_name("declarator"), n.child_by_field_name("default_value")
            if "static" not in quals or not quals & {"const", "constexpr"} or ident is None or value is None:
                continue
            if ident.type == "field_identifier" and _literal_arithmetic(value):
                add(ident, n.child_by_field_name("type"), value)
        elif n.type == "preproc_def":
            ident = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if ident is None or value is None:
                continue
            raw = src.text_of(value)
            stripped = raw.split("//", 1)[0].split("/*", 1)[0].strip()
            if stripped and (_is_number(stripped) or number_value(stripped) is not None):
                start = value.start_byte + raw.index(stripped)
                out.append(
                    Constant(
                        name=src.text_of(ident),
                        type="#define",
                        value=stripped,
                        side=side,
                        range=src.range_of_bytes(start, start + len(stripped.encode())),
                    )
                )
    return out


def more_constants(src: CppSource, side: Side) -> list[Constant]:
    """Constants `constants` leaves out that a tiling may still be chosen by: enumerators with a
    value (`enum { kTile = 4096 };`), default arguments (`uint32_t tile = 2048`), and an array of
    candidate sizes (`constexpr uint32_t kTiles[] = {1024, 2048, 4096};`), given by its largest
    element (`kTiles[2]`: the size the candidates top out at)."""
    out: list[Constant] = []
    for n in src.walk():
        ident = value = None
        name = ""
        if n.type == "enumerator":
            ident, value = n.child_by_field_name("name"), n.child_by_field_name("value")
        elif n.type == "optional_parameter_declaration":
            ident, value = n.child_by_field_name("declarator"), n.child_by_field_name("default_value")
        elif n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            decl = n.parent
            quals = {src.text_of(c) for c in decl.children if c.type == "type_qualifier"} if decl else set()
            if d is None or d.type != "array_declarator" or v is None or v.type != "initializer_list":
                continue
            if not quals & {"const", "constexpr"}:
                continue
            items = v.named_children
            vals = [number_value(src.text_of(i)) if _literal_arithmetic(i) else None for i in items]
            if not items or any(x is None for x in vals):
                continue
            top = max(range(len(items)), key=lambda i: vals[i] or 0)
            inner = d.child_by_field_name("declarator")
            if inner is None:
                continue
            ident, value, name = inner, items[top], f"{src.text_of(inner)}[{top}]"
        if ident is None or value is None or ident.type not in ("identifier", "field_identifier"):
            continue
        if not _literal_arithmetic(value) or number_value(src.text_of(value)) is None:
            continue
        holder = n.parent if n.type == "init_declarator" else n
        ctype = holder.child_by_field_name("type") if holder is not None and n.type != "enumerator" else None
        out.append(
            Constant(
                name=name or src.text_of(ident),
                type=src.text_of(ctype) if ctype is not None else ("enum" if n.type == "enumerator" else ""),
                value=src.text_of(value),
                side=side,
                range=src.range_of(value),
            )
        )
    return out


def local_literals(src: CppSource, side: Side) -> list[Constant]:
    """Locals a function initialises from a positive literal and never writes again
    (`uint32_t bufferNum = 16;` in a tiling function): a constant in all but its declaration, so
    a choice the dataflow may find. Zero-initialised locals are accumulators or defaults; one
    assigned, incremented or whose address is taken is a variable."""
    out: list[Constant] = []
    for _, fn in src.functions():
        written: set[str] = set()
        candidates: list[tuple[Node, Node, Node]] = []
        for n in src.walk(fn):
            if n.type == "assignment_expression" and (left := n.child_by_field_name("left")) is not None:
                written.add(src.text_of(left))
            elif n.type == "update_expression" and (arg := n.child_by_field_name("argument")) is not None:
                written.add(src.text_of(arg))
            elif n.type == "call_expression" and (callee := n.child_by_field_name("function")) is not None:
                # `GetDataTypeLength(dt, len)`, `GetCoreMemSize(UB, ubSize)`: a getter's out-parameter
                args = n.child_by_field_name("arguments")
                if last_name(src.text_of(callee)).startswith("Get") and args is not None:
                    written.update(src.text_of(a) for a in args.named_children if a.type == "identifier")
            elif n.type == "pointer_expression" and src.text_of(n).startswith("&"):
                if (arg := n.child_by_field_name("argument")) is not None:
                    written.add(src.text_of(arg))
            elif n.type == "declaration" and n.parent is not None and n.parent.type != "translation_unit":
                quals = {src.text_of(c) for c in n.children if c.type == "type_qualifier"}
                if quals & {"const", "constexpr"}:
                    continue  # `constants` has these
                for d in n.children_by_field_name("declarator"):
                    ident, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                    if d.type != "init_declarator" or ident is None or ident.type != "identifier":
                        continue
                    if value is not None and _literal_arithmetic(value):
                        candidates.append((n, ident, value))
        for decl, ident, value in candidates:
            current = number_value(src.text_of(value))
            if src.text_of(ident) in written or current is None or current <= 0:
                continue
            out.append(_local(src, side, ident, decl, value))
    return out


def _local(src: CppSource, side: Side, ident: Node, decl: Node | None, at: Node) -> Constant:
    """A local of a function as a constant: its name and declared type, the text at `at` its value."""
    ctype = decl.child_by_field_name("type") if decl is not None else None
    return Constant(
        name=src.text_of(ident),
        type=src.text_of(ctype) if ctype is not None else "",
        value=src.text_of(at),
        side=side,
        range=src.range_of(at),
        local=True,
    )


# The platform's core counts a host tiling reads (`ascendcPlatform.GetCoreNumAiv()`).
_CORE_COUNT_CALLS = frozenset({"GetCoreNumAiv", "GetCoreNum"})


def core_count_reads(src: CppSource, side: Side) -> list[Constant]:
    """Locals initialised from the platform's vector core count (`auto coreNum =
    ascendcPlatform.GetCoreNumAiv();`), as a constant at the call (value: the call's text): where
    the host sizes its launch by the SoC, a cap on the cores used may be a choice."""
    out: list[Constant] = []
    for _, fn in src.functions():
        for n in src.walk(fn):
            if n.type != "init_declarator":
                continue
            ident, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if ident is None or ident.type != "identifier" or value is None:
                continue
            call = _core_count_call(src, value)
            if call is None:
                continue
            out.append(_local(src, side, ident, n.parent, call))
    return out


_CASTS = frozenset({"static_cast", "uint32_t", "int32_t", "uint64_t", "int64_t", "int"})


def _core_count_call(src: CppSource, value: Node) -> Node | None:
    """The platform core-count call `value` is, under casts and parentheses; None for anything else."""
    node = value
    while node.type in ("call_expression", "parenthesized_expression") and node.named_children:
        callee = node.child_by_field_name("function")
        if node.type == "parenthesized_expression" or callee is None:
            node = node.named_children[0]
            continue
        if callee.type == "field_expression" and last_name(src.text_of(callee)) in _CORE_COUNT_CALLS:
            return node
        args = node.child_by_field_name("arguments")  # static_cast<int64_t>(…)
        inner = args.named_children if args is not None else []
        if len(inner) != 1 or src.text_of(callee).split("<", 1)[0].rsplit("::", 1)[-1] not in _CASTS:
            return None
        node = inner[0]
    return None


def _is_number(text: str) -> bool:
    body = text.rstrip("uUlLfF")
    try:
        float(body) if "." in body or ("e" in body.lower() and not body.lower().startswith("0x")) else int(
            body, 0
        )
    except ValueError:
        return False
    return True


def _literal_arithmetic(node: Node) -> bool:
    if node.type == "number_literal":
        return True
    if node.type == "parenthesized_expression":
        return len(node.named_children) == 1 and _literal_arithmetic(node.named_children[0])
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return (
            op is not None
            and op.type in _INT_OPS
            and left is not None
            and right is not None
            and _literal_arithmetic(left)
            and _literal_arithmetic(right)
        )
    return False


_INT_OPS = frozenset({"+", "-", "*", "<<"})
_ARITH_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F']+|\d[\d']*)[uUlL]*|(<<|[-+*()]))")


def number_value(literal: str) -> int | None:
    """An integer literal's value (`4096`, `0x100`, `8u`), or of integer arithmetic on literals
    (`24 * 1024`, `(1 << 16)`); None for anything else."""
    tokens: list[int | str] = []
    pos, text = 0, literal.strip()
    while pos < len(text):
        m = _ARITH_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        tokens.append(int(m.group(1).replace("'", ""), 0) if m.group(1) else m.group(2))
        pos = m.end()
    value, rest = _sum(tokens)
    return value if not rest else None


def _sum(tokens: list[int | str]) -> tuple[int | None, list[int | str]]:
    """C precedence for what _ARITH_TOKEN reads: `<<` below `+ -` below `*`."""
    value, rest = _additive(tokens)
    while value is not None and rest[:1] == ["<<"]:
        right, rest = _additive(rest[1:])
        value = None if right is None or right < 0 or right > 62 else value << right
    return value, rest


def _additive(tokens: list[int | str]) -> tuple[int | None, list[int | str]]:
    value, rest = _product(tokens)
    while value is not None and rest[:1] in (["+"], ["-"]):
        op = rest[0]
        right, rest = _product(rest[1:])
        value = None if right is None else value + right if op == "+" else value - right
    return value, rest


def _product(tokens: list[int | str]) -> tuple[int | None, list[int | str]]:
    value, rest = _atom(tokens)
    while value is not None and rest[:1] == ["*"]:
        right, rest = _atom(rest[1:])
        value = None if right is None else value * right
    return value, rest


def _atom(tokens: list[int | str]) -> tuple[int | None, list[int | str]]:
    if not tokens:
        return None, tokens
    head, rest = tokens[0], tokens[1:]
    if isinstance(head, int):
        return head, rest
    if head == "-":
        value, rest = _atom(rest)
        return (None if value is None else -value), rest
    if head == "(":
        value, rest = _sum(rest)
        return (value, rest[1:]) if rest[:1] == [")"] else (None, rest)
    return None, tokens
