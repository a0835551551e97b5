"""The twin's API registry agrees with its headers and with the timing model's cost table."""

from __future__ import annotations

import re
from pathlib import Path

from ascendopt.evaluation.cpu_twin.api import SUPPORTED_API
from ascendopt.evaluation.cpu_twin.build import INCLUDE_DIR
from ascendopt.evaluation.timing import costs

# A public definition: `inline … Name(`, a declaration `void Name(…);` (defined in the runtime), `class Name`,
# a macro instance `MACRO(Name, …)`, or the Matmul API's classes brought in from namespace matmul.
_DEF = re.compile(
    r"^(?:template <.*> )?(?:__aicore__ )?(?:constexpr )?(?:static )?inline\s[^(]*?\b([A-Z]\w*)\s*\(|"
    r"^void \*?([A-Z]\w*)\(.*\);$|"
    r"^(?:template <.*> )?class ([A-Z]\w*)\b|^ASCENDOPT_TWIN_\w+\(([A-Z]\w*),|^using matmul::([A-Z]\w*);$"
)
# Names the headers define that are types or helpers rather than APIs a kernel calls.
_NOT_API = {"TPosition", "HardEvent", "MaskMode", "RoundMode", "CMPMODE", "SELMODE", "ReduceOrder"}
_NOT_API |= {"IsSameType"}


def _public_definitions(header: Path) -> set[str]:
    """Names defined at namespace AscendC level (outside twin_detail) of one header."""
    names: set[str] = set()
    inside_api = inside_detail = False
    for line in header.read_text(encoding="utf-8").splitlines():
        if line.startswith("namespace AscendC {"):
            inside_api = True
        elif line.startswith("}  // namespace AscendC"):
            inside_api = False
        elif line.startswith("namespace twin_detail {"):
            inside_detail = True
        elif line.startswith("}  // namespace twin_detail"):
            inside_detail = False
        elif inside_api and not inside_detail:
            m = _DEF.match(line)
            if m:
                names.add(next(g for g in m.groups() if g))
    return names - _NOT_API


def test_every_registered_api_is_defined_in_its_header() -> None:
    for api in SUPPORTED_API:
        header = INCLUDE_DIR / api.header
        assert header.is_file(), api
        assert api.name in _public_definitions(header), f"{api.name} is not defined in {api.header}"


def test_every_public_definition_is_registered() -> None:
    registered = {(a.header, a.name) for a in SUPPORTED_API}
    missing = [
        (str(h.relative_to(INCLUDE_DIR)), n)
        for h in sorted((INCLUDE_DIR / "ascendopt_twin").glob("*.h"))
        for n in sorted(_public_definitions(h))
        if (str(h.relative_to(INCLUDE_DIR)), n) not in registered
    ]
    # Host-side headers define host APIs (tiling, platform), which the kernel registry does not cover.
    assert [m for m in missing if not m[0].endswith(("host.h", "tiling_reg.h"))] == []


def test_cost_table_and_registry_agree() -> None:
    vector = {a.name for a in SUPPORTED_API if a.kind == "vector"}
    supported = {a.name for a in SUPPORTED_API}
    # Every API the timing model costs is one the twin runs ...
    assert sorted(set(costs.VEC_INTRINSICS) - supported) == []
    # ... and every vector API the twin runs has a cost (Cast through the conversion table).
    assert sorted(n for n in vector if costs.vec_intrinsics(n, "float32") is None) == []


# The public members of the twin's API classes: what the AscendC docs give each, nothing of the twin's
# own (issue 23: no raw GM or UB memory, no sanitizer state). The twin reaches the rest through
# twin_detail::Access.
_PUBLIC_MEMBERS = {
    # operator=: the docs' whole-tensor form `dst = a + b` (the operators are private friends of the class)
    "LocalTensor": "PrimType LocalTensor operator[] GetValue SetValue operator() GetSize SetSize GetLength "
    "GetPhyAddr GetPosition SetShapeInfo GetShapeInfo SetUserTag GetUserTag ReinterpretCast operator=",
    "GlobalTensor": "PrimType GlobalTensor SetGlobalBuffer operator[] GetValue SetValue operator() "
    "GetPhyAddr GetSize SetL2CacheHint",
    "TQueBind": "TQueBind AllocTensor EnQue DeQue FreeTensor HasTensorInQue GetTensorCountInQue VacantInQue "
    "HasIdleBuffer FreeAllEvent",
    "TQue": "",
    "TBuf": "TBuf Get GetWithOffset AllocTensor FreeTensor",
    "TPipe": "TPipe ~TPipe operator= InitBuffer Reset Destroy Init FetchEventID AllocEventID ReleaseEventID",
    "TQueSync": "SetFlag WaitFlag",
    "TensorDesc": "TensorDesc ~TensorDesc SetShapeAddr GetDim GetIndex GetShape GetDataPtr GetDataObj",
    "ListTensorDesc": "ListTensorDesc Init GetDesc GetDataPtr GetSize",
}
_CLASS = re.compile(r"^(?:template <.*> )?class (\w+)\b[^;]*$")


def _public_members(header: Path) -> dict[str, set[str]]:
    """Class name → the names of its public members (declared at the class body's indentation)."""
    out: dict[str, set[str]] = {}
    current, public = None, False
    for line in header.read_text(encoding="utf-8").splitlines():
        m = _CLASS.match(line)
        if m:
            current, public = m.group(1), False
            out[current] = set()
            continue
        if current is None:
            continue
        if line.startswith("};"):
            current = None
        elif line in ("public:", "private:", "protected:"):
            public = line == "public:"
        elif public and line.startswith("    ") and not line.startswith("     "):
            text = line.strip()
            declares_nothing = text.startswith("template") and "(" not in text
            if declares_nothing or text.startswith(("//", "{", "}", "static_assert")):
                continue
            name = (
                re.match(r"using (\w+)", text)
                or re.search(r"(operator\s*(?:\(\)|\[\]|=))\s*\(", text)
                or re.search(r"(~?\w+)\s*\(", text)
                or re.search(r"(\w+)\s*(?:=|\{|;|\[)", text)
            )
            assert name, f"{header.name}: cannot read {line!r}"
            out[current].add(name.group(1).replace(" ", ""))
    return out


def test_api_classes_expose_only_documented_members() -> None:
    seen: dict[str, set[str]] = {}
    for header in ("tensor.h", "tpipe.h", "list_tensor.h"):
        seen |= _public_members(INCLUDE_DIR / "ascendopt_twin" / header)
    assert set(_PUBLIC_MEMBERS) <= set(seen), sorted(seen)
    extra = {c: sorted(seen[c] - set(_PUBLIC_MEMBERS[c].split())) for c in _PUBLIC_MEMBERS}
    assert {c: e for c, e in extra.items() if e} == {}
