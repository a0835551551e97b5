"""The knob space of an operator: the tunable choices, where they live, what they may be.

Three sources, merged (an annotation wins over an inference on the same constant; one choice
written on both sides becomes one knob, see `merge_knobs`):

* **annotations** — a comment on a constant's line, or on the line just above it::

      constexpr uint32_t TILE_LENGTH = 4096;  // ascendopt: knob values=1024,2048,4096,8192
      // ascendopt: knob range=1..48
      const uint32_t CORE_NUM = 40;
      #define ROWS 8  // ascendopt: knob pow2=1..64

  `values=a,b,c` lists the choices; `range=lo..hi` (with optional `step=s`) and
  `pow2=lo..hi` generate them; `name=…` renames the knob. `ascendopt: fixed`
  stops a constant being inferred as a knob.
* **inferred** — well-known tunables by name: buffer count (`BUFFER_NUM`,
  `DB_BUFFER`, …), tile length (`TILE_LENGTH`, `UB_FACTOR`, `PP_ELEMENT_NUM`, …),
  block dim / core count (`BLOCK_DIM`, `CORE_NUM`, …), tile count (`TILE_NUM`),
  on the host a core split (`MIN_PER_CORE`, `MAX_ELEMENT_NUM_EACH_CORE`, …) and a
  path-switch threshold (`MIN_SPLIT_THRESHOLD`: it picks a tiling-key argument,
  a policy), and a literal passed to `SetBlockDim(n)`. Values may be written as
  literal arithmetic (`24 * 1024`). Besides the kernel entry and the tiling
  program, the headers they include from the operator's own folder are read
  (CANN keeps the kernel's class in `op_kernel/<op>.h`), each constant only
  where the SoC's build compiles it (`#if __NPU_ARCH__ …`, see preproc.py).
  A tiling-key argument chosen by dtype is a correctness requirement: no knob.
* **evolve regions** — the lines between `// # evolve_tiling_block_start` and
  `// # evolve_tiling_block_end` in the tiling program (the seed paper's
  marker): a free-form region host search and rewriting may replace.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from tree_sitter import Node

from ascendopt.operators import dataflow, domains, includes, launch, preproc
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.extract import number_value
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import Constant, Knob, KnobKind, RefusedConstant, ScaledLink, Side
from ascendopt.operators.repository import find_repo_root, is_arch_variant

EVOLVE_START = "# evolve_tiling_block_start"
EVOLVE_END = "# evolve_tiling_block_end"
PINNED = "annotated `ascendopt: fixed`"
_ANNOTATION = re.compile(r"ascendopt:\s*(knob|fixed)\b(.*)")

_INFERRED: list[tuple[KnobKind, re.Pattern[str], list[int], str]] = [
    (
        "buffer_num",
        re.compile(
            r"^(BUFFER_NUM|BUFFER_COUNT|BUF_NUM|DOUBLE_BUFFER|DOUBLE_BUFFER_NUM|DB_BUFFER|DB_NUM|BUFFER_DEPTH"
            r"|QUEUE_DEPTH)$",
            re.I,
        ),
        [1, 2, 3, 4],
        "every queue holds this many tiles: tile bytes x buffers must fit the Unified Buffer",
    ),
    (
        "tile_length",
        re.compile(
            r"^(TILE_LENGTH|TILE_LEN|TILE_SIZE|TILE_ELEMS|UB_FACTOR(?:_B(?:8|16|32)(?:_\w+)?)?|UB_TILE|ROWS_PER_TILE|TILE_ROWS"
            r"|MAX_TILE_LENGTH|TILE_COLS|MAX_TILE_ELEMENTS|PP_ELEMENT_NUM|PING_PONG_ELEMENT_NUM)$",
            re.I,
        ),
        [],
        "tile bytes x buffers must fit the Unified Buffer; GM<->UB copies move whole 32 B blocks",
    ),
    (
        "block_dim",
        re.compile(r"^(BLOCK_DIM|BLOCK_NUM|CORE_NUM|USED_CORE_NUM|MAX_CORE_NUM|NUM_CORES)$", re.I),
        [1, 2, 4, 8, 16, 20, 24, 32, 40, 48],
        "at most the SoC's vector cores per wave (40 on 910B4, 48 on 910B1); more blocks run in waves",
    ),
    (
        "tile_num",
        re.compile(r"^(TILE_NUM|TILE_COUNT|NUM_TILES)$", re.I),
        [1, 2, 4, 8, 16, 32, 64],
        "the per-core length must split into this many 32 B aligned tiles",
    ),
    (
        "core_grain",
        re.compile(
            r"^(MIN_PER_CORE|MIN_PER_CORE_ELEMENTS|PER_CORE_MIN_ELEMENTS|MIN_ELEMENTS_PER_CORE"
            r"|SINGLE_CORE_MIN_ELEMENTS|MAX_ELEMENT_NUM_EACH_CORE|MIN_ELEMENT_NUM_EACH_CORE)$",
            re.I,
        ),
        [],
        "the elements a core is given before another core is used: smaller spreads an input over more "
        "cores (each pays its own start-up); the host's block dim follows from it",
    ),
    (
        "threshold",
        re.compile(r"^[A-Z0-9_]*(SPLIT|DB|DOUBLE_BUFFER|MULTI_CORE)[A-Z0-9_]*_THRESHOLD$", re.I),
        [],
        "a size at which the tiling program switches path (buffer mode, tiling key): a policy, so every "
        "path it can pick must be correct, which verify checks on each case",
    ),
]
# Host-side kinds: constants the tiling program reads (a kernel constant of that name is something else).
_HOST_ONLY: frozenset[KnobKind] = frozenset({"core_grain", "threshold"})


def _pow2_between(lo: int, hi: int) -> list[int]:
    out, v = [], 1
    while v <= hi:
        if v >= lo:
            out.append(v)
        v *= 2
    return out


def _tile_values(current: int) -> list[int]:
    # Powers of two from an eighth to eight times the current value, current included.
    lo, hi = max(1, current // 8), current * 8
    return sorted({*_pow2_between(lo, hi), current})


def _inferred_values(kind: KnobKind, current: int) -> list[int]:
    listed = next(v for k, _, v, _ in _INFERRED if k == kind)
    if kind == "threshold":  # 0: the path above the threshold always
        return sorted({0, *_tile_values(current)}) if current > 0 else [0]
    return sorted({*(listed or _tile_values(current)), current})


def parse_annotation(text: str) -> tuple[str, dict[str, str]] | None:
    """`// ascendopt: knob values=1,2` → ('knob', {'values': '1,2'})."""
    m = _ANNOTATION.search(text)
    if not m:
        return None
    opts = dict(re.findall(r"(\w+)\s*=\s*([^\s]+)", m.group(2)))
    return m.group(1), opts


def annotation_values(opts: dict[str, str], current: int) -> list[int]:
    """The value list an annotation describes; raises ValueError with a readable reason."""
    if "values" in opts:
        vals = [int(v, 0) for v in opts["values"].split(",") if v.strip()]
    elif "range" in opts or "pow2" in opts:
        key = "range" if "range" in opts else "pow2"
        lo_s, sep, hi_s = opts[key].partition("..")
        if not sep:
            raise ValueError(f"{key}= needs 'lo..hi', got {opts[key]!r}")
        lo, hi = int(lo_s, 0), int(hi_s, 0)
        if lo > hi:
            raise ValueError(f"{key}={opts[key]} is empty")
        step = int(opts.get("step", "1"), 0)
        if step <= 0:
            raise ValueError("step must be positive")
        vals = _pow2_between(lo, hi) if key == "pow2" else list(range(lo, hi + 1, step))
        if len(vals) > 4096:
            raise ValueError(f"{key}={opts[key]} gives {len(vals)} values; at most 4096")
    else:
        raise ValueError("an annotation needs values=…, range=lo..hi or pow2=lo..hi")
    if not vals:
        raise ValueError("the annotation gives no values")
    return sorted(set(vals) | {current})


def knobs_of(
    src: CppSource,
    side: Side,
    consts: list[Constant],
    issues: list[Issue],
    macros: dict[str, int] | None = None,
    verdicts: dict[tuple[str, int], dataflow.Verdict] | None = None,
    refused: list[RefusedConstant] | None = None,
) -> list[Knob]:
    """Every knob one file holds; annotation problems go to `issues`. With `macros` (what the SoC's
    build defines), a constant in an `#if` branch that build leaves out is no knob. `verdicts`:
    what the dataflow walk over all the operator's sources says of each constant (without them,
    this file is walked alone); the constants it refuses go to `refused`, with why."""
    if verdicts is None:
        verdicts = dataflow.analyze([(src, side)], [(src, c) for c in consts]).verdicts
    inactive = preproc.inactive_lines(src.text, macros) if macros is not None else set()

    def refuse(const: Constant, reason: str) -> None:
        if refused is not None:
            refused.append(
                RefusedConstant(
                    name=const.name,
                    side=side,
                    file=const.range.file,
                    line=const.range.start_line,
                    value=const.value,
                    reason=reason,
                )
            )

    for c in consts:
        if c.range.start_line in inactive:
            refuse(c, "in an `#if` branch the spec's SoC does not compile")
    consts = [c for c in consts if c.range.start_line not in inactive]
    notes: dict[int, tuple[str, dict[str, str], int]] = {}  # line → (verb, opts, comment line)
    # Lines, not comment nodes: a comment after `#define X 16` is part of the macro's value node.
    for line, text in enumerate(src.text.splitlines(), start=1):
        code, sep, comment = text.partition("//")
        parsed = parse_annotation(comment) if sep else None
        if parsed is not None:
            notes[line if code.strip() else line + 1] = (parsed[0], parsed[1], line)

    knobs: list[Knob] = []
    for const in consts:
        current = number_value(const.value)
        if current is None:
            refuse(const, "not a whole number written as a literal (computed, or not an integer)")
            continue
        note = notes.pop(const.range.start_line, None)
        if note is not None:
            verb, opts, note_line = note
            if verb == "fixed":
                refuse(const, PINNED)
                continue
            try:
                values = annotation_values(opts, current)
            except ValueError as exc:
                issues.append(
                    Issue(file=src.path, line=note_line, message=f"knob annotation: {exc}", code="knob")
                )
                continue
            knobs.append(
                Knob(
                    name=opts.get("name", const.name),
                    kind=_kind_of(const.name) or "annotated",
                    side=side,
                    source="annotation",
                    range=const.range,
                    current=current,
                    values=values,
                    constraints=_constraints_of(const.name),
                )
            )
            continue
        verdict = verdicts.get((const.range.file, const.range.start_byte))
        hint = _kind_of(const.name)
        if hint in _HOST_ONLY and side != "host":
            hint = None
        role, why = (verdict.role, verdict.reason) if verdict is not None else (None, "not walked")
        if (
            const.local
            and role in ("tile_num", "tile_elems", "tile_bytes")
            and verdict is not None
            and verdict.ub_share_only
            and not _FACT.search(const.name)
            and not _HW_FACT.search(const.name)
        ):
            # A tiling function's own `uint32_t bufferNum = 16;` splitting the UB into that many
            # parts: the tile follows from it (fewer parts, bigger tiles); the twin checks each fits.
            role, why = "ub_parts", f"{why}, as the parts the UB is split into"
        elif role is not None and (fact := _fact(const.name, current, role, verdict)):
            role, why = None, fact
        if (
            role is None
            and hint is not None
            and verdict is not None
            and verdict.reason == dataflow.NEVER_READ
        ):
            # Read nowhere the walk sees (a header alone, code that does not parse): the name decides.
            role, why = "by_name", ""
        if role == "tiling_field" and hint is None:
            role, why = None, f"{why}, a tiling-data field the kernel is not seen reading (no role)"
        if role is None or current <= 0:
            refuse(const, why if current > 0 else "not a positive size")
            continue
        kind = hint if role in ("tiling_field", "by_name") and hint is not None else dataflow.ROLE_KIND[role]
        knobs.append(
            Knob(
                name=const.name,
                kind=kind,
                side=side,
                source="inferred",
                range=const.range,
                current=current,
                values=domains.ub_parts_values(current)
                if role == "ub_parts"
                else _inferred_values(kind, current),
                constraints=[*_kind_constraints(kind), *([f"by dataflow: it {why}"] if why else [])],
                role=role if role not in ("tiling_field", "by_name") else None,
                sinks=verdict.sinks if verdict is not None else [],
            )
        )
    for _, _, note_line in notes.values():
        issues.append(
            Issue(
                file=src.path,
                line=note_line,
                severity="warning",
                code="knob",
                message="knob annotation is not on (or just above) a constant with a number literal; ignored",
            )
        )
    knobs.extend(_set_block_dim_literals(src, side))
    knobs.extend(evolve_regions(src, side, issues))
    return knobs


# Sizes the hardware or the dtype fix: what they divide or scale is a fact, not a choice.
_FACT = re.compile(
    r"(TYPE|DTYPE|DT|DATA_?TYPE|ELEM(ENT)?|DATA)_?(SIZE|BYTES?|LEN)\d*$|BYTES?_PER_|PER_BLOCK|ALIGN|BLK_SIZE"
    r"|^BLOCK_BYTES$|ONE_BLOCK|REPEAT|MASK|SIZE_?OF|^k?(Type|Dtype|Elem)(Size|Bytes)",
    re.I,
)


# Hardware facts by name: per-repeat/per-block element counts, the repeat limit, byte lengths, the
# UB's capacity; and the kernel's structure: how many tensors share the UB, reserved UB bytes.
_HW_FACT = re.compile(
    r"PER_?REP|PER_?BLK|REP_?NUM|REA?PEAT|BYTE_?(LEN|SIZE|NUM)|(FP16|FP32|BF16|HALF|FLOAT|INT\d+)_?(SIZE|BYTES?)$"
    r"|UB_?SIZE$|^MAX_?BUFFER$|COEXIST|UB_?COUNTS?|_WEIGHT$|UB_?DIVIDER|RESERVED|UB_USED$|^DATA_?BLOCK$"
    r"|TENSORS?_?(COUNT|NUM)$|^BLOCK_?(FLOAT|HALF|ELEM|ELEMENT|FP32|FP16|B16|B32)S?$"
    # memories' capacities and their units: L1/L0A/L0B/L0C sizes, cache lines, fractals, C0, bits
    r"|^L(0[ABC]|1|2)_|CACHE_?LINE|FRACTAL|^C0_|BITS?_?(NUM_)?PER_|_IN_(U?INT|FP|FLOAT)\d*$"
    # the block in a dtype's elements or bytes: FP16_BLOCK_SIZE, FLOAT_BLOCK_ELEM, BYTE_BLOCK_FOR_BF16
    r"|^(FP\d+|BF\d+|B\d+|FLOAT|HALF|BYTE)_?BLOCK|BLOCK_?(SIZE|NUM|ELEM)S?_?(FOR_)?(FP|BF|FLOAT|HALF|B)\d*$"
    r"|^(DTYPE|DATA_?TYPE|TYPE)_?(SIZE|BYTES?|LEN)_",
    re.I,
)
_NUMBER_WORDS = {
    "ONE": 1, "TWO": 2, "THREE": 3, "FOUR": 4, "FIVE": 5, "SIX": 6, "SEVEN": 7, "EIGHT": 8,
    "NINE": 9, "TEN": 10, "SIXTEEN": 16, "THIRTY_TWO": 32, "SIXTY_FOUR": 64,
}  # fmt: skip


def _spells_value(name: str, value: int) -> bool:
    """`MOV_8 = 8`, `INDEX_TWO = 2`, `SIZE_2 = 2`: a literal given a name, not a choice."""
    upper = name.upper()
    if re.search(rf"(^|_|[A-Z]){value}$", upper):
        return True
    if value == 2 and "HALF" in upper:  # DIV_TO_HALF, HALF_INTERVAL: halving
        return True
    return any(upper.endswith(word) and v == value for word, v in _NUMBER_WORDS.items())


def _fact(name: str, value: int, role: str, verdict: dataflow.Verdict | None = None) -> str | None:
    """Why a constant that reaches a sink is still no knob: a dtype's size, an alignment, the block,
    a hardware fact named as one, a literal named for its value, a small factor or an offset."""
    hinted = _kind_of(name) is not None
    if _FACT.search(name) and not hinted:
        return f"reaches the tiling as {role}, but its name says it is a size the dtype or hardware fixes"
    if _HW_FACT.search(name) and not hinted:
        return f"reaches the tiling as {role}, but its name states a hardware or layout fact"
    if value >= 255 and (value + 1) & value == 0 and role != "buffer_num":
        return f"{value} = 2^{value.bit_length()} - 1: the limit of a hardware field (a count), not a choice"
    if verdict is not None and verdict.aligns and value <= 512 and role != "buffer_num":
        return f"sizes are rounded to a multiple of it ({value}): an alignment granule, not a choice"
    named_block = not hinted and re.search(r"(BLOCK|BLK)_?(SIZE|BYTES?|LEN)$", name, re.I) is not None
    if value == 32 and (role in ("tile_bytes", "tile_num") or named_block):
        # `BLOCK_SIZE = 32` divides lengths into blocks on the way to the block dim: still the block
        return "32: the Unified Buffer's block, which copies and buffers align to (a hardware fact)"
    if _spells_value(name, value) and role != "buffer_num":
        return f"reaches the tiling as {role}, but its name spells its value ({value}): a named literal"
    if verdict is not None and verdict.ub_share_only and role != "buffer_num" and not hinted:
        return (
            f"reaches the tiling as {role} only as a divisor of the UB's capacity: how many tensors share it"
        )
    if verdict is not None and role not in ("buffer_num", "block_dim", "threshold"):
        if verdict.factor_only and value in (1, 2, 4, 8, 16):
            return f"reaches the tiling as {role} only as a factor {value} of another size (a layout fact)"
        if verdict.offset_only:
            return f"reaches the tiling as {role} only as an offset added or taken off (reserved space)"
    return None


def core_cap_knobs(
    reads: list[Constant],
    verdicts: dict[tuple[str, int], dataflow.Verdict],
    core_count: int,
    refused: list[RefusedConstant],
    others: list[Knob],
    constants: Sequence[Constant] = (),
) -> list[Knob]:
    """A cap on the cores used where the host reads the platform's core count and launches that
    many blocks (`auto coreNum = ascendcPlatform.GetCoreNumAiv(); … SetBlockDim(coreNum)`): the
    call is replaced by a count from 1 to the SoC's (`core_count`, the current value: the call
    kept). Whether the tiling stays right on fewer cores is for verification to say. None where
    one of `others` (a block dim, a core grain) already sets that launch: the cores used follow
    from it, and a cap would only multiply the space; nor where one of `constants` refused as
    annotated `ascendopt: fixed` sets it in that role: the user fixed the launch."""
    out = []
    roles = ("block_dim", "core_grain")
    launches = {s for k in others if k.role in roles for s in k.sinks if s.startswith("block_dim")}
    fixed = {(r.file, r.line) for r in refused if r.reason == PINNED}
    for const in constants:
        if (const.range.file, const.range.start_line) not in fixed:
            continue
        v = verdicts.get((const.range.file, const.range.start_byte))
        if v is not None and v.role in roles:
            launches.update(s for s in v.sinks if s.startswith("block_dim"))
    for read in reads:
        verdict = verdicts.get((read.range.file, read.range.start_byte))
        mine = {s for s in verdict.sinks if s.startswith("block_dim")} if verdict is not None else set()
        if verdict is None or verdict.role != "block_dim" or mine & launches:
            why = verdict.reason if verdict is not None else "not walked"
            if mine & launches:
                why = "a block-dim or core-grain knob already sets the launch it reaches"
            refused.append(
                RefusedConstant(
                    name=read.name,
                    side=read.side,
                    file=read.range.file,
                    line=read.range.start_line,
                    value=read.value,
                    reason=f"the platform's core count, not launched as the block dim ({why})",
                )
            )
            continue
        out.append(
            Knob(
                name=f"{read.name}_cap",
                kind="block_dim",
                side=read.side,
                source="inferred",
                range=read.range,
                current=core_count,
                values=list(range(1, core_count + 1)),
                constraints=[
                    f"the cores used: `{read.value}` replaced by a count up to the SoC's ({core_count}); "
                    "the current value keeps the call",
                    f"by dataflow: it {verdict.reason}",
                ],
                role="core_cap",
                sinks=verdict.sinks,
            )
        )
    return out


def _kind_of(name: str) -> KnobKind | None:
    for kind, pattern, _, _ in _INFERRED:
        if pattern.match(name):
            return kind
    return None


def _constraints_of(name: str) -> list[str]:
    return _kind_constraints(_kind_of(name))


def _kind_constraints(kind: KnobKind | None) -> list[str]:
    return [c for k, _, _, c in _INFERRED if k == kind]


def _set_block_dim_literals(src: CppSource, side: Side) -> list[Knob]:
    out: list[Knob] = []
    if "SetBlockDim" not in src.text:
        return out  # kernel headers: no call to walk for
    for callee, call in src.calls():
        if not callee.endswith("SetBlockDim"):
            continue
        args = call.child_by_field_name("arguments")
        lits = [a for a in (args.named_children if args is not None else []) if a.type == "number_literal"]
        if len(lits) == 1:
            current = number_value(src.text_of(lits[0]))
            if current is not None:
                out.append(
                    Knob(
                        name="SetBlockDim",
                        kind="block_dim",
                        side=side,
                        source="inferred",
                        range=src.range_of(lits[0]),
                        current=current,
                        values=sorted({*next(v for k, _, v, _ in _INFERRED if k == "block_dim"), current}),
                        constraints=_constraints_of("BLOCK_DIM"),
                    )
                )
    return out


def evolve_regions(src: CppSource, side: Side, issues: list[Issue]) -> list[Knob]:
    if EVOLVE_START not in src.text and EVOLVE_END not in src.text:
        return []  # most files: no marker, no walk over every node
    comments = src.comments()
    starts = [c for c in comments if EVOLVE_START in src.text_of(c)]
    ends = [c for c in comments if EVOLVE_END in src.text_of(c)]
    out = []
    for n, start in enumerate(starts):
        end = next((e for e in ends if e.start_byte > start.end_byte), None)
        if end is None:
            issues.append(
                Issue(
                    file=src.path,
                    line=start.start_point[0] + 1,
                    code="knob",
                    message=f"`{EVOLVE_START}` has no matching `{EVOLVE_END}`",
                )
            )
            continue
        ends.remove(end)
        # The region is the whole lines between the two marker lines.
        body_start = (
            src.data.index(b"\n", start.end_byte) + 1
            if b"\n" in src.data[start.end_byte :]
            else start.end_byte
        )
        body_end = src.data.rfind(b"\n", 0, end.start_byte) + 1
        body_end = max(body_end, body_start)
        rng = src.range_of_bytes(body_start, body_end)
        out.append(
            Knob(
                name=f"evolve_region_{n}" if len(starts) > 1 else "evolve_region",
                kind="region",
                side=side,
                source="evolve_region",
                range=rng,
                current=src.data[body_start:body_end].decode("utf-8", errors="replace"),
                constraints=["free-form C++ inside the tiling program; must keep the tiling data it fills"],
            )
        )
    for e in ends:
        issues.append(
            Issue(
                file=src.path,
                line=e.start_point[0] + 1,
                code="knob",
                message=f"`{EVOLVE_END}` has no `{EVOLVE_START}` before it",
            )
        )
    return out


def launch_block_dim_knob(
    main: CppSource, block_dim_expr: str, launch_lines: set[int], kernel: CppSource
) -> Knob | None:
    """A kernel-launch sample's block dim as a knob: the number literal the launch's block dim comes
    from in main.cpp (`uint32_t blockDim = 8;`, `constexpr uint32_t BLOCK_DIM = 8;`, or the literal
    in the launch itself). Only when the kernel derives its split from `GetBlockNum()`: a kernel with
    its core count compiled in (`USE_CORE_NUM = 8`) computes wrong results at any other block dim."""
    if not any(callee.rsplit("::", 1)[-1] == "GetBlockNum" for callee, _ in kernel.calls()):
        return None
    expr = block_dim_expr.strip()
    lits: list[Node] = []
    if expr.isidentifier():
        for n in main.walk():
            if n.type != "init_declarator" or not launch.active(n):
                continue
            ident, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if ident is not None and value is not None and main.text_of(ident) == expr:
                lits = [value] if value.type == "number_literal" else []
                break
    else:  # the literal written in every launch of this kernel (the CPU-debug and the NPU one)
        lits = [
            n
            for n in main.walk()
            if n.type == "number_literal" and main.text_of(n) == expr and n.start_point[0] + 1 in launch_lines
        ]
    current = number_value(main.text_of(lits[0])) if lits else None
    if current is None:
        return None
    return Knob(
        name=expr if expr.isidentifier() else "blockDim",
        kind="block_dim",
        side="host",
        source="inferred",
        range=main.range_of(lits[0]),
        links=[main.range_of(n) for n in lits[1:]],
        current=current,
        values=sorted({*next(v for k, _, v, _ in _INFERRED if k == "block_dim"), current}),
        constraints=_constraints_of("BLOCK_DIM"),
    )


def merge_knobs(knobs: list[Knob]) -> list[Knob]:
    """One knob per choice. A constant mirrored on both sides with one value becomes a linked knob;
    a buffer count whose host value is a whole multiple of the kernel's (the host's UB-tensor count
    = queues x the kernel's queue depth) becomes the kernel's knob carrying the host's as a scaled
    link; a host core split written as the kernel's tile (`MAX_ELEMENT_NUM_EACH_CORE = 8 * 1024`,
    `PP_ELEMENT_NUM = 8 * 1024`) moves with it. Other same-named constants get a side prefix."""
    merged: list[Knob] = []
    for k in knobs:
        twin = next((m for m in merged if m.name == k.name), None)
        if twin is None:
            merged.append(k)
        elif twin.current == k.current and twin.kind == k.kind:
            twin.links.append(k.range)
        elif (factor := _buffer_factor(twin, k)) is not None:
            kernel, host = (twin, k) if twin.side == "kernel" else (k, twin)
            kernel.scaled_links.append(ScaledLink(range=host.range, factor=factor))
            kernel.constraints.append(
                f"the host's {host.name} at {host.range.file}:{host.range.start_line} moves with it, "
                f"as {factor} x this value (the UB tensors it splits the Unified Buffer into)"
            )
            if twin is host:
                merged[merged.index(twin)] = kernel
        else:
            twin.name = f"{twin.side}.{twin.name}"
            k.name = f"{k.side}.{k.name}"
            merged.append(k)
    seen: set[str] = set()
    for k in merged:  # a name written three times with different values: say where each lives
        if k.name in seen:
            k.name = f"{k.name}@{k.range.file}:{k.range.start_line}"
        seen.add(k.name)
    return _couple_core_grain(merged)


def _buffer_factor(a: Knob, b: Knob) -> int | None:
    """The host value over the kernel value of one buffer count seen on both sides, when whole."""
    if {a.side, b.side} != {"host", "kernel"} or a.kind != "buffer_num" or b.kind != "buffer_num":
        return None
    if a.source != "inferred" or b.source != "inferred" or a.scaled_links or b.scaled_links:
        return None
    kernel, host = (a, b) if a.side == "kernel" else (b, a)
    k, h = int(kernel.current), int(host.current)
    return h // k if k > 0 and h > k and h % k == 0 else None


def _couple_core_grain(knobs: list[Knob]) -> list[Knob]:
    """A host core split equal to exactly one kernel tile (and the other way round) is that tile:
    the kernel hands out tiles of that size to the cores the host counted by it."""
    grains = [k for k in knobs if k.kind == "core_grain" and k.side == "host" and k.source == "inferred"]
    tiles = [k for k in knobs if k.kind == "tile_length" and k.side == "kernel" and k.source == "inferred"]
    out = list(knobs)
    for grain in grains:
        same = [t for t in tiles if t.current == grain.current]
        if len(same) != 1 or sum(g.current == grain.current for g in grains) != 1:
            continue
        tile = same[0]
        tile.links.append(grain.range)
        tile.constraints.append(
            f"the host's {grain.name} at {grain.range.file}:{grain.range.start_line} moves with it "
            "(the host counts the cores it needs in tiles of this size)"
        )
        out.remove(grain)
    return out


def knob_headers(
    root: Path, kernel_sources: list[str], host_sources: list[str], arch: dict[str, int]
) -> dict[str, tuple[Side, Path]]:
    """Headers of the operator that its kernel and host sources include (quoted includes the build
    compiles, the kernel's with the SoC's `arch` macros), keyed relative to the operator root, with
    their side (op_kernel/ → kernel, op_host/ → host, else the side that includes it) and the file.
    CANN keeps its kernel's class, with `BUFFER_NUM`, in `op_kernel/<op>.h`, or in a header of a
    sibling operator its kernel build finds at `../rms_norm/x.h` (keyed at that build-tree place,
    `rms_norm/x.h`; see includes.resolve_on_disk). Repository-wide headers (`common/inc/…`) are not
    the operator's; other architectures' files (`arch35/`, `*_regbase.h`) are not this SoC's."""
    root = root.resolve()
    repo = find_repo_root(root) or root
    dirs = [root / d for d in includes.OPERATOR_FOLDERS]
    out: dict[str, tuple[Side, Path]] = {}
    sides: tuple[tuple[Side, list[str]], ...] = (("kernel", kernel_sources), ("host", host_sources))
    real_of: dict[Path, Path] = {}

    def resolve(path: Path, name: str) -> Path | None:
        virtual, hit = includes.resolve_on_disk(path, name, dirs, root, repo, real_of)
        return None if hit is None else Path(os.path.normpath(virtual or hit))

    for side, starts in sides:

        def follow(include: includes.Include[Path], side: Side = side) -> bool:
            place = include.target
            assert place is not None
            hit = real_of.get(place, place)
            if not place.is_relative_to(root) or hit.suffix not in (".h", ".hpp", ".inc"):
                return False
            rel = place.relative_to(root).as_posix()
            if is_arch_variant(rel) or is_arch_variant(hit.name):
                return False
            top = rel.split("/", 1)[0]
            by_folder: Side = "kernel" if top == "op_kernel" else "host" if top == "op_host" else side
            out.setdefault(rel, (by_folder, Path(os.path.normpath(hit))))
            return True

        includes.closure(
            [root / s for s in starts],
            lambda path: includes.read_on_disk(path, real_of),
            resolve,
            macros=arch if side == "kernel" else {},  # unknown conditions: not compiled
            follow=follow,
        )
    return out
