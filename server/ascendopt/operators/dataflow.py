"""Knobs by dataflow: which integer constants decide the tiling, and in what role.

A def-use walk over the tree-sitter parses of all the operator's sources at once (host, kernel,
the headers they include): a constant's value flows through initialisations and assignments
(`auto t = kTile * 2;`, `this->tileLen = t;`), through the arguments of functions the sources
define (into their parameters) and their return values, through tiling-data fields (the host's
`tiling.set_x(v)` / `td.x = v`, the kernel's `tilingData.x`), and through the comparisons of an
`if` into what its branches assign. Names are resolved per function (a local or a parameter),
else as one global name (namespace constants, class members, struct fields).

A constant is a knob when its value reaches a **tiling sink**; the sink and the path decide the
role, not the name:

* `SetBlockDim(v)` — `block_dim`; through a divisor (`total / kMinPerCore`) — `core_grain`;
* `InitBuffer(q, n, size)` — `n` is the `buffer_num`; `size` the tile in bytes (`tile_bytes`),
  or in elements when multiplied by `sizeof(…)` (`tile_elems`); a divisor of it is a `tile_num`;
  `InitBuffer(tbuf, size)` likewise;
* `DataCopy(dst, src, len)` and the vector instructions' count — `tile_elems` (`tile_bytes` when
  divided by `sizeof(…)`; a divisor is a `tile_num`);
* the bound of a `for` loop that moves data (a copy or queue call in its body, or a call of one of
  the operator's own functions that makes one) — `tile_num` (the trip count), or `tile_elems`
  through a divisor (`total / kTile` tiles); a stride (`i += kTile`) — `tile_elems`;
* a relational comparison (`<`, `>=`, …) that reaches any sink (an `if` that picks the tiling
  key, or the block dim, or a tile) — `threshold`;
* a tiling-data field the kernel is not seen reading — `tiling_field` (a weak role: the name
  hint names it when it can).

Refused, each with why (`ascendopt knobs --all`): a constant that reaches no sink (a log
message, a check), and the tiling key's own value (`SetTilingKey(KEY_FP16)` names the kernel
branch that must run: a correctness requirement, not a choice).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from tree_sitter import Node

from ascendopt.operators.cpp_source import CppSource, last_name
from ascendopt.operators.model import Constant, KnobKind, Side

Role = Literal[
    "block_dim",
    "core_grain",
    "buffer_num",
    "tile_elems",
    "tile_bytes",
    "tile_num",
    "threshold",
    "tiling_field",
    "ub_parts",
    "core_cap",
]
ROLE_KIND: dict[str, KnobKind] = {
    "ub_parts": "tile_num",  # a local dividing the UB into parts (knobs.py decides)
    "core_cap": "block_dim",  # the platform's core count replaced by a cap (knobs.core_cap_knobs)
    "block_dim": "block_dim",
    "core_grain": "core_grain",
    "buffer_num": "buffer_num",
    "tile_elems": "tile_length",
    "tile_bytes": "tile_length",
    "tile_num": "tile_num",
    "threshold": "threshold",
    "tiling_field": "annotated",
}
# Which role wins when a constant reaches several sinks (a comparison's role only when nothing else).
_PRECEDENCE: tuple[str, ...] = (
    "block_dim",
    "buffer_num",
    "core_grain",
    "tile_elems",
    "tile_bytes",
    "tile_num",
    "threshold",
    "tiling_field",
)
# Calls the sources do not define whose value is a plain function of their arguments (so a constant
# passed in flows out): the rest (a log, a check, an API that reads shapes or the platform) stop it.
_PASS_THROUGH = frozenset(
    {
        "min",
        "max",
        "Min",
        "Max",
        "CeilAlign",
        "AlignUp",
        "RoundUp",
        "FloorAlign",
        "AlignDown",
        "Align",
        "static_cast",
        "reinterpret_cast",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
        "int",
        "size_t",
    }
)
# Calls that move data between GM and UB or through the queues: a loop around them walks tiles.
_MOVES = frozenset({"DataCopy", "DataCopyPad", "EnQue", "DeQue", "AllocTensor", "FreeTensor"})
_RELATIONAL = frozenset({"<", ">", "<=", ">="})
# Helpers that round their first argument to a multiple of their second (the granule).
_ALIGN_HELPERS = frozenset({"CeilAlign", "AlignUp", "RoundUp", "FloorAlign", "AlignDown", "Align"})
_EQUALITY = frozenset({"==", "!="})
_DIVIDE_HELPERS = frozenset(
    {"CeilDiv", "CeilDivision", "DivCeil", "FloorDiv", "CeilDivide", "DivRoundUp", "CeilDiv32", "Ceil"}
)
# AscendC vector instructions whose last argument is the element count they process.
_VECTOR_OPS = frozenset(
    {
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Max",
        "Min",
        "Adds",
        "Muls",
        "Maxs",
        "Mins",
        "Exp",
        "Ln",
        "Abs",
        "Sqrt",
        "Rsqrt",
        "Reciprocal",
        "Relu",
        "Duplicate",
        "Cast",
        "Axpy",
        "Compare",
        "Select",
        "LeakyRelu",
        "Not",
        "And",
        "Or",
        "ReduceSum",
        "ReduceMax",
        "ReduceMin",
        "Power",
        "Sigmoid",
        "Tanh",
        "Sin",
        "Cos",
    }
)

NEVER_READ = "never read in the sources walked"
Key = tuple[object, str]  # (scope: None for a global name, a function's id, or "ret"), name


@dataclass(frozen=True)
class Flow:
    """How a value reached a place: through a divisor (inverse), scaled by sizeof (+1: elements
    became bytes, -1: bytes became elements), through a relational comparison."""

    inverse: bool = False
    scale: int = 0
    cmp: bool = False
    mul: bool = False  # a factor of a product (`n * X`): a multiplier, not the size itself
    add: bool = False  # a term of a sum or difference (`ub - X`): an offset, reserved space
    ub_share: bool = False  # divides the UB's capacity (`UB_SIZE / X`): how many tensors share it
    align: bool = False  # rounds a size to a multiple of it (`n / X * X`, `AlignUp(n, X)`): a granule

    def then(self, other: Flow) -> Flow:
        return Flow(
            self.inverse != other.inverse,
            max(-1, min(1, self.scale + other.scale)),
            self.cmp or other.cmp,
            self.mul or other.mul,
            self.add or other.add,
            self.ub_share or other.ub_share,
            self.align or other.align,
        )


@dataclass
class _Sink:
    kind: str  # block_dim | buffer_num | ub_size | copy_len | trip | stride | tiling_key | tiling_field
    where: str


@dataclass
class Verdict:
    role: str | None
    reason: str  # the sink that gave the role, or why none
    sinks: list[str] = field(default_factory=list)
    factor_only: bool = False  # every sink reached as a factor of a product
    offset_only: bool = False  # every sink reached as a term of a sum or difference
    ub_share_only: bool = False  # every sink reached as a divisor of the UB's capacity
    aligns: bool = False  # some sink reached as the multiple a size is rounded to (a granule)


class _Graph:
    def __init__(self, sources: list[tuple[CppSource, Side]]) -> None:
        self.edges: dict[Key, list[tuple[Key, Flow]]] = {}
        self.sinks: dict[Key, list[tuple[_Sink, Flow]]] = {}
        self.uses: dict[Key, int] = {}
        self.ordered: dict[Key, list[tuple[Key, str]]] = {}  # relational comparisons: the other side
        # name → (function key, parameter names), one per overload
        self.functions: dict[str, list[tuple[object, list[str]]]] = {}
        self._locals: dict[int, set[str]] = {}
        self._fn_key: dict[int, object] = {}
        self._fn_names: dict[int, str] = {}
        self._out_params: dict[object, list[str]] = {}  # `uint32_t& ubFactor`: written for the caller
        # InitBuffer calls with a depth: the UB queues a tile is multiplied by (a TBuf's size is often
        # not a tile's: a reduction's block, a conditional staging buffer).
        self.buffer_slots = 0
        for n, (src, _) in enumerate(sources):
            for name, fn in src.functions():
                self._fn_key[fn.id] = (n, fn.start_byte)
                self._fn_names[fn.id] = last_name(name)
                self._locals[fn.id] = self._declared(src, fn)
                self.functions.setdefault(last_name(name), []).append(
                    (self._fn_key[fn.id], self._params(src, fn))
                )
                self._out_params[self._fn_key[fn.id]] = self._params(src, fn, by_reference=True)
        self._movers = _movers(sources)
        for n, (src, _) in enumerate(sources):
            self._walk(n, src)

    # -- scopes --------------------------------------------------------------------------------
    def _declared(self, src: CppSource, fn: Node) -> set[str]:
        out = set(p for p in self._params(src, fn))
        for node in src.walk(fn):
            if node.type in ("init_declarator", "declaration"):
                d = node.child_by_field_name("declarator")
                if d is not None and (ident := _ident_of(d)) is not None:
                    out.add(src.text_of(ident))
        return out

    @staticmethod
    def _params(src: CppSource, fn: Node, by_reference: bool = False) -> list[str]:
        decl = fn.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        params = decl.child_by_field_name("parameters") if decl is not None else None
        out = []
        for p in params.named_children if params is not None else []:
            d = p.child_by_field_name("declarator")
            ident = _ident_of(d) if d is not None else None
            keep = not by_reference or (d is not None and d.type == "reference_declarator")
            out.append(src.text_of(ident) if ident is not None and keep else "")
        return out

    def _function_of(self, node: Node) -> Node | None:
        p = node.parent
        while p is not None and p.type != "function_definition":
            p = p.parent
        return p

    def key(self, src: CppSource, node: Node, name: str) -> Key:
        fn = self._function_of(node)
        while fn is not None:
            if name in self._locals.get(fn.id, ()):
                return (self._fn_key[fn.id], name)
            fn = self._function_of(fn)
        return (None, name)

    # -- expressions ---------------------------------------------------------------------------
    def refs(self, src: CppSource, expr: Node, base: Flow = Flow()) -> list[tuple[Key, Flow]]:
        """The names an expression reads, with how each flows into its value."""
        out: list[tuple[Key, Flow]] = []
        stack = [expr]
        while stack:
            n = stack.pop()
            if n.type in ("identifier", "field_identifier") and n.parent is not None:
                if n.parent.type == "field_expression" and n.parent.child_by_field_name("field") != n:
                    continue
                flow = _flow(src, n, expr)
                if flow is not None:
                    out.append((self.key(src, n, src.text_of(n)), base.then(flow)))
                continue
            if n.type == "qualified_identifier":
                flow = _flow(src, n, expr)
                if flow is not None:
                    out.append(((None, last_name(src.text_of(n))), base.then(flow)))
                continue
            if n.type in (
                "sizeof_expression",
                "string_literal",
                "template_argument_list",
                "lambda_expression",
            ):
                continue
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                callee = last_name(src.text_of(fn)) if fn is not None else ""
                args = n.child_by_field_name("arguments")
                known = _passes_through(src, fn, callee)  # min, CeilDiv…: by name, per call
                if callee in self.functions and not known:  # the sources define it: its return value flows
                    flow = _flow(src, n, expr)
                    if flow is not None:
                        out.append(((("ret",), callee), base.then(flow)))
                    if fn is not None and fn.type == "field_expression":
                        stack.append(fn)
                    continue
                if fn is not None and fn.type == "field_expression":
                    arg = fn.child_by_field_name("argument")
                    if arg is not None:
                        stack.append(arg)
                if args is not None and _passes_through(src, fn, callee):
                    named = args.named_children
                    if callee in _DIVIDE_HELPERS and len(named) == 2:
                        out.extend((k, f.then(Flow(inverse=True))) for k, f in self.refs(src, named[1], base))
                        named = named[:1]
                    elif callee in _ALIGN_HELPERS and len(named) == 2:
                        out.extend((k, f.then(Flow(align=True))) for k, f in self.refs(src, named[1], base))
                        named = named[:1]
                    stack.extend(named)
                continue
            stack.extend(n.named_children)
        return out

    def guards(self, src: CppSource, node: Node) -> list[tuple[Key, Flow]]:
        """Relational comparisons of the `if`s (and `?:`s) whose branch holds `node`."""
        out: list[tuple[Key, Flow]] = []
        child, p = node, node.parent
        while p is not None and p.type != "function_definition":
            if (
                p.type == "if_statement"
                and child != p.child_by_field_name("condition")
                and not _only_fails(src, p.child_by_field_name("consequence"))
            ):
                cond = p.child_by_field_name("condition")
                if cond is not None:
                    out.extend((k, f) for k, f in self.refs(src, cond) if f.cmp)
            child, p = p, p.parent
        return out

    def _edge(self, target: Key, srcs: list[tuple[Key, Flow]]) -> None:
        for k, f in srcs:
            self.edges.setdefault(k, []).append((target, f))

    def _sink(self, kind: str, src: CppSource, at: Node, expr: Node, base: Flow = Flow()) -> None:
        where = f"{kind} at {src.path}:{at.start_point[0] + 1}"
        for k, f in [*self.refs(src, expr, base), *self.guards(src, at)]:
            self.sinks.setdefault(k, []).append((_Sink(kind, where), f))

    # -- statements ----------------------------------------------------------------------------
    def _walk(self, n_src: int, src: CppSource) -> None:
        for node in src.walk():
            t = node.type
            if t in ("identifier", "field_identifier"):
                if not _declares(node):
                    k = self.key(src, node, src.text_of(node))
                    self.uses[k] = self.uses.get(k, 0) + 1
            elif t == "init_declarator":
                d, v = node.child_by_field_name("declarator"), node.child_by_field_name("value")
                ident = _ident_of(d) if d is not None else None
                if ident is not None and v is not None:
                    target = self.key(src, ident, src.text_of(ident))
                    self._edge(target, [*self.refs(src, v), *self.guards(src, node)])
                    if _is_copy_params(src, node):
                        items = v.named_children
                        if len(items) > 1:
                            self._sink("copy_len", src, node, items[1], Flow(scale=-1))
            elif t == "assignment_expression":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is None or right is None:
                    continue
                target_node = _target_of(left)
                if target_node is None:
                    continue
                target = self.key(src, target_node, src.text_of(target_node))
                self._edge(target, [*self.refs(src, right), *self.guards(src, node)])
                if left.type == "field_expression" and _tiling_object(src, left):
                    self._sink("tiling_field", src, node, right)
            elif t == "call_expression":
                self._call(src, node)
            elif t == "binary_expression":
                self._equality(src, node)
            elif t == "case_statement" and (label := node.child_by_field_name("value")) is not None:
                self._identity(src, node, label)
            elif t == "switch_statement" and (cond := node.child_by_field_name("condition")) is not None:
                self._identity(src, node, cond)
            elif t == "for_statement":
                self._loop(src, node)
            elif t == "return_statement":
                fn = self._function_of(node)
                if fn is not None and node.named_children:
                    name = self._fn_names.get(fn.id)
                    if name is not None:
                        self._edge((("ret",), name), self.refs(src, node.named_children[0]))

    def _identity(self, src: CppSource, at: Node, expr: Node) -> None:
        """A value compared for equality with another name, a case label or what a switch picks
        on: an identifier (an op code, an enum, a selector): another value means another thing."""
        where = f"identity at {src.path}:{at.start_point[0] + 1}"
        for k, f in self.refs(src, expr):
            if not (f.inverse or f.mul or f.add):  # `n % X == 0` tests a size, names nothing
                self.sinks.setdefault(k, []).append((_Sink("identity", where), f))

    def _equality(self, src: CppSource, node: Node) -> None:
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None:
            return
        if src.text_of(op) in _RELATIONAL and not (_is_literal(left) or _is_literal(right)):
            # `opCode <= TAN_CODE`: ordered against an identifier, a constant names a range of codes
            where = f"identity at {src.path}:{node.start_point[0] + 1}"
            lhs, rhs = self.refs(src, left), self.refs(src, right)
            for a_side, b_side in ((lhs, rhs), (rhs, lhs)):
                for k, _ in a_side:
                    self.ordered.setdefault(k, []).extend((other, where) for other, _ in b_side)
            return
        if src.text_of(op) not in _EQUALITY:
            return
        if _is_literal(left) or _is_literal(right):
            return  # `if (BUFFER_NUM == 1)`: a size tested for one value, not matched against a name
        if not (_names_a_constant(src, left) or _names_a_constant(src, right)):
            return  # `tileLen == lastLen`: two sizes found equal, nothing named
        self._identity(src, node, left)
        self._identity(src, node, right)

    def _call(self, src: CppSource, call: Node) -> None:
        fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if fn is None or args is None:
            return
        callee = last_name(src.text_of(fn))
        a = args.named_children
        if callee == "SetBlockDim" and a:
            self._sink("block_dim", src, call, a[0])
        elif callee == "InitBuffer" and len(a) >= 2:
            if len(a) >= 3:
                self.buffer_slots += 1
                self._sink("buffer_num", src, call, a[1])
            self._sink("ub_size", src, call, a[-1])
        elif callee in ("DataCopy", "DataCopyPad") and len(a) == 3:
            self._sink("copy_len", src, call, a[2])
        elif callee in _VECTOR_OPS and len(a) >= 3 and fn.type != "field_expression":
            self._sink("copy_len", src, call, a[-1])
        elif callee == "SetTilingKey" and a:
            self._sink("tiling_key", src, call, a[0])
        elif callee.startswith("set_") and fn.type == "field_expression" and a:
            self._edge((None, callee[4:]), self.refs(src, a[0]))
            self._sink("tiling_field", src, call, a[0])
        elif callee in self.functions and not _passes_through(src, fn, callee):
            for fn_key, params in self.functions[callee]:
                for arg, param, out in zip(a, params, self._out_params.get(fn_key, []), strict=False):
                    if param:
                        self._edge((fn_key, param), [*self.refs(src, arg), *self.guards(src, call)])
                    if out and (target := _target_of(arg)) is not None:  # written back to the caller's
                        self._edge(self.key(src, target, src.text_of(target)), [((fn_key, out), Flow())])

    def _moves_data(self, src: CppSource, body: Node | None) -> bool:
        """Whether a loop's body moves data: a copy or queue call, or a call of one of the
        operator's own functions that does (`CopyIn(i)`). A loop over a series' terms or the
        inputs' shapes repeats a computation; its trip count is no tile count."""
        return body is not None and bool(_callees(src, body) & (_MOVES | self._movers))

    def _loop(self, src: CppSource, loop: Node) -> None:
        if not self._moves_data(src, loop.child_by_field_name("body")):
            return
        cond, update = loop.child_by_field_name("condition"), loop.child_by_field_name("update")
        if cond is not None and cond.type == "binary_expression":
            op = cond.child_by_field_name("operator")
            right = cond.child_by_field_name("right")
            if op is not None and src.text_of(op) in ("<", "<=", "!=") and right is not None:
                self._sink("trip", src, loop, right)
        if update is not None and update.type == "assignment_expression":
            op = update.child_by_field_name("operator")
            right = update.child_by_field_name("right")
            if op is not None and src.text_of(op) in ("+=", "-=") and right is not None:
                self._sink("stride", src, loop, right)


def _callees(src: CppSource, node: Node) -> set[str]:
    """The names of the functions called under `node` (`AscendC::DataCopy<T>` → `DataCopy`)."""
    return {
        last_name(src.text_of(fn).split("<", 1)[0])
        for n in src.walk(node)
        if n.type == "call_expression" and (fn := n.child_by_field_name("function")) is not None
    }


def _movers(sources: list[tuple[CppSource, Side]]) -> set[str]:
    """The operator's own functions that move data, directly or through one another."""
    calls: dict[str, set[str]] = {}
    for src, _ in sources:
        for name, fn in src.functions():
            calls.setdefault(last_name(name), set()).update(_callees(src, fn))
    movers = {name for name, callees in calls.items() if callees & _MOVES}
    while grown := {name for name, callees in calls.items() if callees & movers} - movers:
        movers |= grown
    return movers


def _passes_through(src: CppSource, fn: Node | None, callee: str) -> bool:
    """Whether an undefined callee's arguments flow into its value: a short list (min/max, ceiling
    divisions and alignments, casts), not a method call (`x.Get(...)`), not anything else."""
    if fn is None or fn.type == "field_expression":
        return False
    callee = last_name(src.text_of(fn).split("<", 1)[0])  # std::min<uint32_t> → min
    # The tiling-key builders (`GET_TPL_TILING_KEY(mode, doubleBuffer)`) encode their arguments.
    return (
        callee in _PASS_THROUGH or callee in _DIVIDE_HELPERS or "tilingkey" in callee.replace("_", "").lower()
    )


def _ident_of(d: Node) -> Node | None:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        if d.type in ("pointer_declarator", "reference_declarator", "array_declarator", "init_declarator"):
            nxt = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
            if nxt is None:
                return None
            d = nxt
        else:
            return None
    return d


_DECLARING = frozenset(
    {
        "init_declarator",
        "preproc_def",
        "enumerator",
        "field_declaration",
        "array_declarator",
        "optional_parameter_declaration",
        "parameter_declaration",
        "declaration",
        "function_declarator",
    }
)


def _declares(node: Node) -> bool:
    """The name being declared, not read."""
    p = node.parent
    if p is None or p.type not in _DECLARING:
        return False
    return any(p.child_by_field_name(f) == node for f in ("declarator", "name"))


def _target_of(left: Node) -> Node | None:
    if left.type == "identifier":
        return left
    if left.type == "field_expression":
        return left.child_by_field_name("field")
    if left.type in ("subscript_expression", "pointer_expression", "parenthesized_expression"):
        inner = left.child_by_field_name("argument") or (
            left.named_children[0] if left.named_children else None
        )
        return _target_of(inner) if inner is not None else None
    return None


def _tiling_object(src: CppSource, field_expr: Node) -> bool:
    arg = field_expr.child_by_field_name("argument")
    return arg is not None and "tiling" in src.text_of(arg).lower()


def _is_copy_params(src: CppSource, init: Node) -> bool:
    decl = init.parent
    if decl is None or decl.type != "declaration":
        return False
    t = decl.child_by_field_name("type")
    v = init.child_by_field_name("value")
    return (
        t is not None
        and "DataCopyExtParams" in src.text_of(t)
        and v is not None
        and v.type == "initializer_list"
    )


def _mentions(src: CppSource, node: Node, name: str) -> bool:
    return any(
        n.type in ("identifier", "field_identifier") and src.text_of(n) == name for n in src.walk(node)
    )


def _has_sizeof(node: Node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "sizeof_expression":
            return True
        stack.extend(n.named_children)
    return False


_UB_CAPACITY = re.compile(r"\bk?(MAX_?)?UB_?(SIZE|CAPACITY)\b|\bubSize\b|\bkUbSize\b", re.I)
_FAILURE = ("FAILED", "FAIL", "ERROR", "false", "nullptr")


def _only_fails(src: CppSource, branch: Node | None) -> bool:
    """A branch that only logs and returns an error: its comparison rejects a shape, picks nothing."""
    if branch is None:
        return False
    stmts = branch.named_children if branch.type == "compound_statement" else [branch]
    stmts = [s for s in stmts if s.type != "comment"]
    returns = [s for s in stmts if s.type == "return_statement"]
    if not returns or any(s.type not in ("return_statement", "expression_statement") for s in stmts):
        return False
    if any(
        s.type == "expression_statement"
        and s.named_children
        and s.named_children[0].type != "call_expression"
        for s in stmts
    ):
        return False
    return all(any(w in src.text_of(r) for w in _FAILURE) for r in returns)


def _is_literal(node: Node) -> bool:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node.type == "number_literal"


def _flow(src: CppSource, node: Node, root: Node) -> Flow | None:
    """How `node`'s value reaches `root`'s (None: it does not: an equality test, a subscript index)."""
    inverse, scale, cmp, mul, add, ub_share, align = False, 0, False, False, False, False, False
    name = src.text_of(node)
    child, p = node, node.parent
    while p is not None and child.id != root.id:
        if p.type == "binary_expression":
            op_node = p.child_by_field_name("operator")
            op = src.text_of(op_node) if op_node is not None else ""
            left, right = p.child_by_field_name("left"), p.child_by_field_name("right")
            other = right if child == left else left
            if op in _EQUALITY:
                return None
            if op in _RELATIONAL:
                cmp = True
            elif op in ("/", "%") and child == left and right is not None and _mentions(src, right, name):
                return None  # the rounding term of a ceiling division, `(n + X - 1) / X`
            elif op in ("/", "%") and child == right:
                inverse = not inverse
                ub_share = ub_share or bool(left is not None and _UB_CAPACITY.search(src.text_of(left)))
                align = align or _rounded_back(src, p, name)
            elif op == "/" and other is not None and _has_sizeof(other):
                scale -= 1
            elif op == "*" and other is not None and _has_sizeof(other):
                scale += 1
            elif op == "*" and other is not None and _divides_by(src, other, name):
                align = True  # the `* X` of `n / X * X`
            elif op in ("*", "<<") and other is not None and not _is_literal(other):
                mul = True
            elif op in ("+", "-") and other is not None and not _is_literal(other):
                add = True
            elif op in (">>",) and child == right:
                inverse = not inverse
        elif p.type == "subscript_expression" and child != p.child_by_field_name("argument"):
            return None  # an index picks an element; the array's value flows, not the index's
        elif p.type == "conditional_expression" and child == p.child_by_field_name("condition") and not cmp:
            return None
        child, p = p, p.parent
    return Flow(inverse, max(-1, min(1, scale)), cmp, mul, add, ub_share, align)


_CONSTANT_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)$")


def _names_a_constant(src: CppSource, node: Node) -> bool:
    """A constant's or an enumerator's name as written (`FOREACH_ABS_OP_CODE`, `kModeA`, `ge::DT_FLOAT`)."""
    node = _bare(node)
    if node.type == "qualified_identifier":
        return True
    return node.type == "identifier" and _CONSTANT_NAME.match(src.text_of(node)) is not None


def _bare(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _divides_by(src: CppSource, node: Node, name: str) -> bool:
    """`(n / X)` or `(n + X - 1) / X`: a division by `name`."""
    node = _bare(node)
    if node.type != "binary_expression":
        return False
    op, right = node.child_by_field_name("operator"), node.child_by_field_name("right")
    return (
        op is not None and src.text_of(op) == "/" and right is not None and src.text_of(_bare(right)) == name
    )


def _rounded_back(src: CppSource, division: Node, name: str) -> bool:
    """Whether `division` (`n / X`) is multiplied back by X: `n / X * X` rounds n down to X's multiple."""
    child, p = division, division.parent
    while p is not None and p.type == "parenthesized_expression":
        child, p = p, p.parent
    if p is None or p.type != "binary_expression":
        return False
    op = p.child_by_field_name("operator")
    other = (
        p.child_by_field_name("right")
        if child == p.child_by_field_name("left")
        else p.child_by_field_name("left")
    )
    return (
        op is not None and src.text_of(op) == "*" and other is not None and src.text_of(_bare(other)) == name
    )


def _role(sink: str, f: Flow) -> str | None:
    if sink == "identity":
        return None
    if f.cmp:
        return "threshold"
    if sink == "block_dim":
        return "core_grain" if f.inverse else "block_dim"
    if sink == "buffer_num":
        return "buffer_num"
    if sink == "ub_size":
        return "tile_num" if f.inverse else "tile_elems" if f.scale > 0 else "tile_bytes"
    if sink == "copy_len":
        return "tile_num" if f.inverse else "tile_bytes" if f.scale < 0 else "tile_elems"
    if sink == "trip":
        return "tile_elems" if f.inverse else "tile_num"
    if sink == "stride":
        return "tile_bytes" if f.scale < 0 else "tile_elems"
    if sink == "tiling_field":
        return "tiling_field"
    return None  # the tiling key's own value


def constant_key(src: CppSource, const: Constant, graph: _Graph) -> Key:
    node = src.root.descendant_for_byte_range(const.range.start_byte, const.range.end_byte)
    return graph.key(src, node, const.name.split("[", 1)[0]) if node is not None else (None, const.name)


@dataclass
class Analysis:
    verdicts: dict[tuple[str, int], Verdict]  # (file, literal start byte) → verdict
    buffer_slots: int


def analyze(sources: list[tuple[CppSource, Side]], consts: list[tuple[CppSource, Constant]]) -> Analysis:
    """The verdict on every constant: the role its value plays in the tiling, or why none."""
    graph = _Graph(sources)
    out: dict[tuple[str, int], Verdict] = {}
    for src, const in consts:
        start = constant_key(src, const, graph)
        seen: set[tuple[Key, Flow]] = set()
        queue: deque[tuple[Key, Flow]] = deque([(start, Flow())])
        hits: list[tuple[str, str]] = []  # (role or "", where)
        mul_only = add_only = share_only = True
        aligns = False
        while queue and len(seen) < 20000:
            k, f = queue.popleft()
            if (k, f) in seen:
                continue
            seen.add((k, f))
            for sink, g in graph.sinks.get(k, []):
                fg = f.then(g)
                hits.append((_role(sink.kind, fg) or "", sink.where))
                # a granule where its own value (copied, not yet divided or scaled) is rounded to;
                # a tile derived from it and rounded to downstream is still a tile
                aligns |= f == Flow() and g.align and bool(_role(sink.kind, fg))
                if _role(sink.kind, fg):
                    mul_only &= fg.mul
                    add_only &= fg.add
                    share_only &= fg.ub_share
            for other, where in graph.ordered.get(k, []):
                if any(sink.kind == "identity" for sink, _ in graph.sinks.get(other, [])):
                    hits.append(("", where))
            for target, g in graph.edges.get(k, []):
                aligns |= f == Flow() and g.align
                queue.append((target, f.then(g)))
        verdict = _verdict(hits, graph.uses.get(start, 0))
        verdict.factor_only, verdict.offset_only = mul_only, add_only
        verdict.ub_share_only = share_only
        verdict.aligns = aligns
        out[(const.range.file, const.range.start_byte)] = verdict
    return Analysis(out, graph.buffer_slots)


def _verdict(hits: list[tuple[str, str]], uses: int) -> Verdict:
    sinks = list(dict.fromkeys(w for _, w in hits))
    same = next((w for _, w in hits if w.startswith("identity")), None)
    if same is not None:
        return Verdict(
            None,
            f"compared for equality ({same}): an identifier (an op code, an enum, a selector), "
            "not a size: another value names another thing",
            sinks,
        )
    roles = [r for r, _ in hits if r]
    if not roles:
        if hits:
            return Verdict(
                None, "only the tiling key's own value: the kernel branch it names must match", sinks
            )
        if uses == 0:
            return Verdict(None, NEVER_READ)
        return Verdict(
            None,
            "read, but its value reaches no tiling sink (block dim, buffers, copies, loops, "
            "tiling data, tiling key)",
        )
    elems, bytes_ = roles.count("tile_elems"), roles.count("tile_bytes")
    if "core_grain" in roles:
        # It also divides the work the cores share (`total / (X / dtype)`): a size per core or per
        # chunk, which a second division (`total / (ub / X)`) only seems to make a count of cores.
        roles = [r for r in roles if r != "block_dim"]
    best = min(roles, key=_PRECEDENCE.index)
    if best in ("tile_elems", "tile_bytes"):
        best = "tile_bytes" if bytes_ > elems else "tile_elems"
    where = next(w for r, w in hits if r == best)
    return Verdict(best, f"reaches {where}", sinks)
