"""Mechanical de-optimizations for rewind mining: each a precise edit made through the parser.

Each returns new file contents (or None when it does not apply to this operator). They are
chosen to keep results identical while undoing one optimization a good kernel relies on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.operators.candidate import Candidate, apply_knobs
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.model import OperatorProject

Files = dict[str, str]


@dataclass(frozen=True)
class Deoptimization:
    name: str
    family: str  # the family of the lesson its reversal teaches
    title: str  # the lesson's title (good direction)
    bottleneck: str  # what the slow version suffers from
    apply: Callable[[OperatorProject, Candidate], Files | None]
    applies_when: str = ""
    avoid_when: str = ""


def _knob_to(
    kind: str, pick: Callable[[list[int]], int]
) -> Callable[[OperatorProject, Candidate], Files | None]:
    def run(project: OperatorProject, cand: Candidate) -> Files | None:
        for knob in project.knobs:
            if knob.kind == kind and knob.values:
                value = pick(knob.values)
                if value != knob.current:
                    return apply_knobs(project, cand, {knob.name: value}).files
        return None

    return run


def _statements_calling(src: CppSource, names: tuple[str, ...]) -> list[tuple[Node, str]]:
    """expression statements whose call's callee ends with one of `names` → (statement, callee)."""
    out = []
    for callee, call in src.calls():
        short = callee.rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1].split("<", 1)[0]
        parent = call.parent
        if short in names and parent is not None and parent.type == "expression_statement":
            out.append((parent, callee))
    return out


def _edit(text: str, edits: list[tuple[int, int, str]]) -> str:
    data = text.encode("utf-8")
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode("utf-8") + data[end:]
    return data.decode("utf-8")


def _indent_of(src: CppSource, node: Node) -> str:
    line = src.line_text(node.start_point[0] + 1)
    return line[: len(line) - len(line.lstrip())]


def _barrier_after_copies(project: OperatorProject, cand: Candidate) -> Files | None:
    path = project.files.kernel
    src = CppSource.parse(path, cand.files[path])
    stmts = _statements_calling(src, ("DataCopy", "DataCopyPad"))
    if not stmts:
        return None
    edits = [
        (s.end_byte, s.end_byte, f"\n{_indent_of(src, s)}AscendC::PipeBarrier<PIPE_ALL>();") for s, _ in stmts
    ]
    return {**cand.files, path: _edit(cand.files[path], edits)}


def _redundant_gm_write(project: OperatorProject, cand: Candidate) -> Files | None:
    path = project.files.kernel
    src = CppSource.parse(path, cand.files[path])
    edits = []
    for stmt, _ in _statements_calling(src, ("DataCopy", "DataCopyPad")):
        call = stmt.named_children[0]
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is not None and "Gm" in src.text_of(first):  # a copy out to global memory
            # The barrier keeps the twice-written bytes ordered (two MTE3 writes to one 32 B block race).
            ind = _indent_of(src, stmt)
            edits.append(
                (
                    stmt.end_byte,
                    stmt.end_byte,
                    f"\n{ind}AscendC::PipeBarrier<PIPE_MTE3>();\n{ind}{src.text_of(stmt)}",
                )
            )
    if not edits:
        return None
    return {**cand.files, path: _edit(cand.files[path], edits)}


def _second_pass(project: OperatorProject, cand: Candidate) -> Files | None:
    path = project.files.kernel
    src = CppSource.parse(path, cand.files[path])
    entry = next((fn for name, fn in src.functions() if name == project.kernel.name), None)
    if entry is None:
        return None
    stmts = [
        s
        for s, callee in _statements_calling(src, ("Process",))
        if entry.start_byte <= s.start_byte < entry.end_byte
    ]
    if len(stmts) != 1:
        return None
    s = stmts[0]
    return {
        **cand.files,
        path: _edit(cand.files[path], [(s.end_byte, s.end_byte, f"\n{_indent_of(src, s)}{src.text_of(s)}")]),
    }


_BINARY = {"Add": "+", "Sub": "-", "Mul": "*"}


def _scalar_loop(project: OperatorProject, cand: Candidate) -> Files | None:
    """Every `Add(z, x, y, n);` (Sub, Mul) → an element-wise GetValue/SetValue loop on the scalar unit."""
    path = project.files.kernel
    src = CppSource.parse(path, cand.files[path])
    edits = []
    for stmt, callee in _statements_calling(src, tuple(_BINARY)):
        args = stmt.named_children[0].child_by_field_name("arguments")
        if args is None or len(args.named_children) != 4:
            continue
        dst, a, b, n = (src.text_of(x) for x in args.named_children)
        op = _BINARY[callee.rsplit("::", 1)[-1].split("<", 1)[0]]
        ind = _indent_of(src, stmt)
        loop = (
            f"for (uint32_t aoI = 0; aoI < static_cast<uint32_t>({n}); aoI++) {{\n"
            f"{ind}    {dst}.SetValue(aoI, {a}.GetValue(aoI) {op} {b}.GetValue(aoI));"
            "\n"
            f"{ind}}}"
        )
        edits.append((stmt.start_byte, stmt.end_byte, loop))
    return {**cand.files, path: _edit(cand.files[path], edits)} if edits else None


DEOPTIMIZATIONS = [
    Deoptimization(
        "single_buffer",
        "kernel.pipeline.double_buffer",
        "Double-buffer the queues (BUFFER_NUM 1 -> 2)",
        "MTE2 copy-in and vector compute do not overlap: one buffer per queue serialises them",
        _knob_to("buffer_num", min),
        applies_when="the kernel loops over several tiles per core and copies them in through TQue queues",
        avoid_when="one tile per core, or the UB budget cannot hold two buffers per queue",
    ),
    Deoptimization(
        "tiny_tiles",
        "host.tiling.tile_length",
        "Size tiles to the UB budget instead of tiny tiles",
        "tiny tiles: per-instruction overhead and small GM packets dominate",
        _knob_to("tile_length", min),
        applies_when="each core moves many small tiles; per-copy latency and instruction issue dominate",
        avoid_when="a larger tile no longer fits the Unified Buffer with all queues and buffers",
    ),
    Deoptimization(
        "fewer_cores",
        "host.tiling.block_dim",
        "Use all vector cores (block dim)",
        "too few blocks: most vector cores idle, GM bandwidth unused",
        _knob_to("block_dim", min),
        applies_when="the work is split over fewer blocks than the SoC has vector cores",
        avoid_when="the input is so small that launching more cores costs more than it saves",
    ),
    Deoptimization(
        "barrier_after_copy",
        "kernel.sync.remove_barrier",
        "Synchronise through queues, not a PipeBarrier<PIPE_ALL> after every copy",
        "PipeBarrier<PIPE_ALL> after every copy serialises MTE2, V and MTE3",
        _barrier_after_copies,
        applies_when="copies are followed by PipeBarrier<PIPE_ALL> although queues already order them",
        avoid_when="a barrier protects a hand-off no queue or flag covers",
    ),
    Deoptimization(
        "redundant_gm_write",
        "kernel.memory.redundant_gm_write",
        "Write each output to GM once",
        "MTE3 busy writing the same GM bytes twice",
        _redundant_gm_write,
        applies_when="the same output bytes are copied out to GM more than once",
        avoid_when="the second write is an intended overwrite (e.g. after atomic accumulation)",
    ),
    Deoptimization(
        "scalar_loop",
        "kernel.vectorize.scalar_loop",
        "Replace an element-wise GetValue/SetValue loop with one vector instruction",
        "scalar-bound: an element-by-element loop on the scalar unit instead of a vector op",
        _scalar_loop,
        applies_when="an element-wise loop uses GetValue/SetValue on a LocalTensor",
        avoid_when="the loop touches a handful of elements (a scalar epilogue)",
    ),
    Deoptimization(
        "second_pass",
        "kernel.fusion.second_pass",
        "Do the work in one pass",
        "the whole computation runs twice: double the MTE2, V and MTE3 time",
        _second_pass,
        applies_when="the computation (or a full copy pass) runs twice over the same data",
        avoid_when="the second pass computes something the first cannot (e.g. a two-pass reduction)",
    ),
]
