"""The server's notification payloads (pydantic, lsp/protocol.py) and the client's TypeScript
interfaces (extension/src/protocol.ts) describe the same shapes: same fields, same optionality,
same JSON types. A field added on one side only fails here, not in the editor."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ascendopt.lsp import protocol

PROTOCOL_TS = Path(__file__).resolve().parents[2] / "extension" / "src" / "protocol.ts"
SHARED = [
    "IndexedOperator",
    "IndexedParams",
    "EvaluatedCase",
    "EvaluatedParams",
    "SuggestionFile",
    "Speedup",
    "OutcomeSummary",
    "SuggestionParams",
    "EpisodeEndedParams",
    "StateOperator",
    "StateEpisode",
    "StateSuggestion",
    "StateLesson",
    "WorkspaceState",
]


def ts_interfaces(text: str) -> dict[str, dict[str, tuple[str, bool]]]:
    """interface name → field → (TypeScript type, optional)."""
    out: dict[str, dict[str, tuple[str, bool]]] = {}
    for name, body in re.findall(r"export interface (\w+) \{(.*?)\n\}", text, re.DOTALL):
        fields = {}
        for line in body.splitlines():
            m = re.match(r"\s*(\w+)(\?)?:\s*([^;]+);", line)
            if m:
                fields[m.group(1)] = (m.group(3).strip(), bool(m.group(2)))
        out[name] = fields
    return out


def ts_kind(ts: str) -> set[str]:
    """The JSON types a TypeScript type admits."""
    kinds = set()
    for part in (p.strip() for p in ts.split("|")):
        if part.endswith("[]"):
            kinds.add("array")
        elif part == "null":
            kinds.add("null")
        elif part in ("string", "number", "boolean"):
            kinds.add(part)
        elif part.startswith("'"):
            kinds.add("string")
        else:
            kinds.add("object")  # another interface
    return kinds


def json_kind(schema: dict[str, Any]) -> set[str]:
    if "anyOf" in schema:
        return set().union(*(json_kind(s) for s in schema["anyOf"]))
    if "$ref" in schema:
        return {"object"}
    kind = schema.get("type")
    if kind == "integer":
        return {"number"}
    if kind is None and "enum" in schema:
        return {"string"}
    return {kind}


def test_every_shared_payload_agrees_with_its_typescript_interface() -> None:
    interfaces = ts_interfaces(PROTOCOL_TS.read_text(encoding="utf-8"))
    for name in SHARED:
        model: type[BaseModel] = getattr(protocol, name)
        schema = model.model_json_schema()
        props, required = schema["properties"], set(schema.get("required", []))
        ts = interfaces[name]
        assert set(ts) == set(props), f"{name}: fields differ: TS {sorted(ts)} vs Python {sorted(props)}"
        for field, (ts_type, optional) in ts.items():
            assert optional == (field not in required), f"{name}.{field}: optional in one side only"
            assert ts_kind(ts_type) == json_kind(props[field]), f"{name}.{field}: {ts_type} vs {props[field]}"


def test_the_comparison_sees_a_difference() -> None:
    text = "export interface EpisodeEndedParams {\n  operator: string;\n  extra: number;\n}\n"
    ts = ts_interfaces(text)["EpisodeEndedParams"]
    assert set(ts) != set(protocol.EpisodeEndedParams.model_json_schema()["properties"])
    assert ts_kind("string | null") == {"string", "null"} and ts_kind("'verify' | 'profile'") == {"string"}
