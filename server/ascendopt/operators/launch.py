"""Kernel-launch samples: where main.cpp launches a kernel, with which block dim and arguments.

Huawei's samples launch in four ways (FIELD-NOTES): `k<<<blockDim, l2ctrl, stream>>>(args)`,
`ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, args)`, `ICPU_RUN_KF(k, blockDim, args)` in CPU-debug
mode, and a wrapper `k_do(blockDim, stream, args)` defined in the kernel file around a `<<<>>>`.
All are read by their tokens (tree-sitter cannot parse `<<<>>>` or macro calls of calls).
Integer values (a block dim, `TOTAL_LENGTH`) are evaluated from literals, `constexpr`/`const`/
plain variable initialisers and `#define`s, taking the branches of `#ifdef` a CPU-debug build
takes (only `ASCENDC_CPU_DEBUG` defined).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.operators.cpp_source import CppSource, Token
from ascendopt.operators.extract import call_args

CPU_DEBUG_DEFINES = frozenset({"ASCENDC_CPU_DEBUG", "__CCE_KT_TEST__"})


@dataclass
class LaunchSite:
    kernel: str
    form: str  # "<<<>>>", "ACLRT_LAUNCH_KERNEL", "ICPU_RUN_KF", or the wrapper's name
    block_dim: str  # the expression as written
    args: list[str]  # the kernel's arguments as written, in order
    token: Token
    template_args: str | None = None  # `<half, 8>` when the launch instantiates a template
    file: str = ""
    line: int = 0


@dataclass
class Wrapper:
    """`void k_do(uint32_t blockDim, void *stream, uint8_t *x…) { k<<<blockDim, …>>>(x…); }`."""

    name: str
    params: list[str]
    inner: LaunchSite
    extra: dict[str, str] = field(default_factory=dict)


def _site(
    src: CppSource,
    tok: Token,
    kernel: str,
    form: str,
    block_dim: str,
    args: list[str],
    template_args: str | None,
) -> LaunchSite:
    return LaunchSite(
        kernel=kernel,
        form=form,
        block_dim=block_dim,
        args=args,
        token=tok,
        template_args=template_args,
        file=src.path,
        line=tok.node.start_point[0] + 1,
    )


def launch_sites(src: CppSource, wrappers: dict[str, Wrapper] | None = None) -> list[LaunchSite]:
    """Every launch in `src`, through any of the four forms (`wrappers` from the kernel files)."""
    toks = src.tokens()
    sites: list[LaunchSite] = []
    wrappers = wrappers or {}
    for i, tok in enumerate(toks):
        t = tok.text
        if t == "<<" and i + 1 < len(toks) and toks[i + 1].text == "<":
            site = _chevron(src, toks, i)
            if site is not None:
                sites.append(site)
        elif t == "ACLRT_LAUNCH_KERNEL" and i + 1 < len(toks) and toks[i + 1].text == "(":
            inner, end = call_args(toks, i + 1)
            args, _ = call_args(toks, end + 1)
            if inner and len(args) >= 2:
                name, targs = _name_and_template(inner[0])
                sites.append(
                    _site(
                        src, tok, kernel=name, form=t, block_dim=args[0], args=args[2:], template_args=targs
                    )
                )
        elif t == "ICPU_RUN_KF" and i + 1 < len(toks) and toks[i + 1].text == "(":
            args, _ = call_args(toks, i + 1)
            if len(args) >= 2:
                name, targs = _name_and_template(args[0])
                sites.append(
                    _site(
                        src, tok, kernel=name, form=t, block_dim=args[1], args=args[2:], template_args=targs
                    )
                )
        elif t in wrappers and i + 1 < len(toks) and toks[i + 1].text == "(" and not _is_definition(tok):
            w = wrappers[t]
            args, _ = call_args(toks, i + 1)
            if len(args) != len(w.params):
                continue
            bind = dict(zip(w.params, args, strict=True))
            sites.append(
                _site(
                    src,
                    tok,
                    kernel=w.inner.kernel,
                    form=w.name,
                    block_dim=bind.get(w.inner.block_dim, w.inner.block_dim),
                    args=[bind.get(a, a) for a in w.inner.args],
                    template_args=w.inner.template_args,
                )
            )
    return sites


def _is_definition(tok: Token) -> bool:
    # `void k_do(uint32_t blockDim, …)` itself, or its `extern void k_do(…);` declaration.
    n: Node | None = tok.node
    while n is not None and n.type not in ("function_declarator", "call_expression", "translation_unit"):
        n = n.parent
    return n is not None and n.type == "function_declarator"


def _name_and_template(text: str) -> tuple[str, str | None]:
    text = text.replace(" ", "")
    if "<" in text and text.endswith(">"):
        name, rest = text.split("<", 1)
        return name, "<" + rest
    return text, None


def _chevron(src: CppSource, toks: list[Token], i: int) -> LaunchSite | None:
    """`name[<targs>] <<< bd , … >>> ( args )` with toks[i] the `<<`."""
    j = i - 1
    targs = None
    if j >= 0 and toks[j].text == ">":
        depth, k = 0, j
        while k >= 0:
            if toks[k].text == ">":
                depth += 1
            elif toks[k].text == "<":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if k <= 0:
            return None
        targs = "".join(t.text for t in toks[k : j + 1])
        j = k - 1
    if j < 0 or toks[j].type != "identifier":
        return None
    name_tok = toks[j]
    # Launch parameters up to `>>>` (tokenised `>` `>>`, or `>>` `>`).
    k, depth = i + 2, 0
    params: list[str] = []
    cur: list[str] = []
    while k < len(toks):
        t = toks[k].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t in (">", ">>", ">>>"):
            break
        if t == "," and depth == 0:
            params.append(" ".join(cur))
            cur = []
        else:
            cur.append(t)
        k += 1
    params.append(" ".join(cur))
    while k < len(toks) and toks[k].text in (">", ">>", ">>>"):
        k += 1
    args, _ = call_args(toks, k)
    return _site(
        src,
        name_tok,
        kernel=name_tok.text,
        form="<<<>>>",
        block_dim=params[0],
        args=args,
        template_args=targs,
    )


def wrappers_in(src: CppSource) -> dict[str, Wrapper]:
    """Functions in a kernel file whose body launches a kernel with `<<<>>>` (the `k_do` wrappers)."""
    found: dict[str, Wrapper] = {}
    for name, fn in src.functions():
        body = fn.child_by_field_name("body")
        if body is None or b"<<<" not in src.data[body.start_byte : body.end_byte]:
            continue
        inner = [s for s in launch_sites(src) if body.start_byte <= s.token.node.start_byte < body.end_byte]
        if not inner:
            continue
        decl = fn.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        params = []
        for p in plist.named_children if plist is not None else []:
            d = p.child_by_field_name("declarator")
            params.append(src.text_of(d).lstrip("*& ") if d is not None else "")
        found[name] = Wrapper(name=name, params=params, inner=inner[0])
    return found


# -- integer values ----------------------------------------------------------------------------


def active(node: Node) -> bool:
    """Whether a CPU-debug build compiles `node` (only ASCENDC_CPU_DEBUG/__CCE_KT_TEST__ defined;
    `#if` expressions other than `#ifdef`/`#ifndef` count as taken)."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "preproc_ifdef":
            name = parent.child_by_field_name("name")
            directive = parent.children[0].type if parent.children else ""
            alt = parent.child_by_field_name("alternative")
            defined = name is not None and name.text is not None and name.text.decode() in CPU_DEBUG_DEFINES
            main_taken = defined if directive == "#ifdef" else not defined
            in_alt = alt is not None and alt.start_byte <= child.start_byte < alt.end_byte
            if in_alt == main_taken:
                return False
        child, parent = parent, parent.parent
    return True


_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


def int_value(expr: str, src: CppSource, depth: int = 0) -> int | None:
    """The integer an expression evaluates to, resolving names declared in `src`; None if unknown."""
    if depth > 8:
        return None
    text = _strip_casts(expr).strip().replace("true", "True").replace("false", "False")
    try:
        tree = ast.parse(text.replace("/", "//"), mode="eval")  # C's integer division
    except SyntaxError:
        return None
    return _eval(tree.body, src, depth)


def _strip_casts(expr: str) -> str:
    out = expr
    for cast in ("static_cast", "reinterpret_cast"):
        while cast in out:
            start = out.index(cast)
            close = out.find(">", start)
            if close < 0:
                return out
            out = out[:start] + out[close + 1 :]
    for suffix in ("UL", "ul", "U", "u", "L", "l"):
        out = _strip_suffix(out, suffix)
    return out.replace("( uint32_t )", "").replace("(uint32_t)", "")


def _strip_suffix(text: str, suffix: str) -> str:
    out, i = [], 0
    while i < len(text):
        if (
            text.startswith(suffix, i)
            and i > 0
            and text[i - 1].isdigit()
            and not (
                i + len(suffix) < len(text)
                and (text[i + len(suffix)].isalnum() or text[i + len(suffix)] == "_")
            )
        ):
            i += len(suffix)
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _eval(node: ast.expr, src: CppSource, depth: int) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _eval(node.operand, src, depth)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _eval(node.left, src, depth), _eval(node.right, src, depth)
        if a is None or b is None or (isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0):
            return None
        return int(_OPS[type(node.op)](a, b))
    if isinstance(node, ast.Name):
        init = initializer(src, node.id)
        return None if init is None else int_value(init, src, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        # `shape[0]` of `std::vector<int64_t> shape = {16, 3};`
        init = initializer(src, node.value.id)
        index = _eval(node.slice, src, depth)
        if init is None or index is None or not init.strip().startswith("{"):
            return None
        items = [i.strip() for i in init.strip().strip("{}").split(",") if i.strip()]
        return int_value(items[index], src, depth + 1) if 0 <= index < len(items) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sizeof":
        arg = node.args[0] if node.args else None
        sizes = {"half": 2, "uint16_t": 2, "int16_t": 2, "float": 4, "int32_t": 4, "uint32_t": 4, "int8_t": 1}
        return sizes.get(arg.id) if isinstance(arg, ast.Name) else None
    return None


def initializer(src: CppSource, name: str) -> str | None:
    """The initialiser text of the first active `T name = …;` (or `#define name …`) in `src`."""
    for n in src.walk():
        if n.type == "init_declarator" and active(n):
            ident = n.child_by_field_name("declarator")
            value = n.child_by_field_name("value")
            if ident is not None and value is not None and src.text_of(ident) == name:
                return src.text_of(value)
        elif n.type == "preproc_def" and active(n):
            ident = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if ident is not None and value is not None and src.text_of(ident) == name:
                return src.text_of(value).split("//", 1)[0].strip()
    return None


def file_bindings(src: CppSource, keep_handed: bool = False) -> dict[str, tuple[str, str]]:
    """Host variables main.cpp fills from `./input/*.bin` (ReadFile) or writes to `./output/*.bin`
    (WriteFile): variable → (role, tensor name), the tensor named after its file (`input_x.bin` → x).
    `keep_handed`: also those main.cpp's own host code rewrites afterwards (when main.cpp itself runs)."""
    out = {var: (role, tensor) for var, (role, tensor, _path) in _file_io(src).items()}
    # A buffer main.cpp's own CPU-debug code hands to something else (`GenerateTilingData(tiling,
    # …)`) may not hold the file's contents: the twin cannot reproduce it without running main.cpp.
    for var in [] if keep_handed else handed_to_host_code(src):
        if var in out and out[var][0] == "input":
            del out[var]
    return out


def file_paths(src: CppSource) -> dict[str, str]:
    """Tensor → the path main.cpp reads it from or writes it to (`x` → `./input/input_x.bin`)."""
    return {tensor: path for _var, (_role, tensor, path) in _file_io(src).items()}


def _file_io(src: CppSource) -> dict[str, tuple[str, str, str]]:
    toks = src.tokens()
    out: dict[str, tuple[str, str, str]] = {}
    for i, tok in enumerate(toks):
        if tok.text not in ("ReadFile", "WriteFile") or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        args, _ = call_args(toks, i + 1)
        if len(args) < 3 or not args[0].startswith('"'):
            continue
        var = (args[2] if tok.text == "ReadFile" else args[1]).split()[-1]
        stem = args[0].strip('" ').rsplit("/", 1)[-1].removesuffix(".bin")
        for prefix in ("input_", "output_"):
            stem = stem.removeprefix(prefix)
        role = "input" if tok.text == "ReadFile" else "output"
        out.setdefault(var, (role, stem, args[0].strip('" ')))
    return out


def handed_to_host_code(src: CppSource) -> dict[str, tuple[str, int]]:
    """Variables main.cpp's CPU-debug code passes to a host function of its own (not file I/O, ACL or
    the CPU-debug launch): variable → (that function, the call's line), the first call for each."""
    out: dict[str, tuple[str, int]] = {}
    copied_from: dict[str, str] = {}  # `memcpy_s(tiling, n, tilingBuf, n)`: tiling holds tilingBuf's bytes
    for callee, call in src.calls():
        name = callee.split("<", 1)[0].rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1]
        if name in _IO_CALLS or name.startswith(("acl", "CHECK_", "ACLRT_")) or not active(call):
            continue
        arglist = call.child_by_field_name("arguments")
        if arglist is None:
            continue
        args = arglist.named_children
        if name in _COPIES:
            dst, source = _COPIES[name]
            if len(args) > max(dst, source) and args[dst].type == args[source].type == "identifier":
                copied_from.setdefault(src.text_of(args[dst]), src.text_of(args[source]))
            continue
        for a in args:
            if a.type == "identifier":
                out.setdefault(src.text_of(a), (name, call.start_point[0] + 1))
    for copy, original in copied_from.items():
        if original in out:
            out.setdefault(copy, out[original])
    return out


# Copies main.cpp makes between host buffers: function → (destination, source) argument positions.
_COPIES = {"memcpy": (0, 1), "memcpy_s": (0, 2), "memmove": (0, 1)}


_IO_CALLS = frozenset(
    {"ReadFile", "WriteFile", "ICPU_RUN_KF", "GmAlloc", "GmFree", "reinterpret_cast", "static_cast", "sizeof"}
)
