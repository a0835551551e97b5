"""What a run of candidate code hands back: its evidence, read from the descriptor the parent opened.

The twin's runtime writes outputs, findings, trace and result as sections to a descriptor
(`ASCENDOPT_EVIDENCE_FD`) that the parent opened on a file no path inside the sandbox reaches,
then leaves with `_exit` (runtime/evidence.cpp): no code the candidate registered runs after
its evidence is final, and nothing in the case folder is believed. The stream is read strictly:
anything but the runtime's own sections, in its own framing and ending where the end line says,
is refused, since only the candidate's code could have written it.

    ascendopt-evidence 1
    <name> <length>\\n<length bytes>      (a name once; trace.jsonl may come in several chunks)
    end <sections>\\n
"""

from __future__ import annotations

import re

EVIDENCE_FD_ENV = "ASCENDOPT_EVIDENCE_FD"  # the environment variable naming the descriptor
MAX_EVIDENCE_BYTES = 1 << 30  # a run's whole evidence (outputs + trace); past it the run is refused
_HEAD = b"ascendopt-evidence 1\n"
_SECTION = re.compile(rb"(?!end )([A-Za-z0-9_.][A-Za-z0-9_./-]{0,255}) (\d{1,12})\n")  # "end" is reserved
_END = re.compile(rb"end (\d{1,9})\n")
_CHUNKED = "trace.jsonl"


class EvidenceError(ValueError):
    """The evidence is missing, or not what the runtime writes."""


def parse_evidence(data: bytes | None) -> dict[str, bytes]:
    """Section name → bytes; EvidenceError for anything the runtime would not have written."""
    if not data:
        raise EvidenceError("the run handed back no evidence (it ended before the twin concluded)")
    if not data.startswith(_HEAD):
        raise EvidenceError("its evidence does not start with the twin's header: something else wrote first")
    parts: dict[str, list[memoryview]] = {}  # joined once at the end: a long trace comes in many chunks
    view = memoryview(data)  # sections copied once, by the join
    at, count = len(_HEAD), 0
    while True:
        if end := _END.fullmatch(data, at):
            if int(end.group(1)) != count:
                claimed = end.group(1).decode()
                raise EvidenceError(f"its evidence ends claiming {claimed} sections, not {count}")
            return {name: b"".join(chunks) for name, chunks in parts.items()}
        section = _SECTION.match(data, at)
        if section is None:
            raise EvidenceError(f"its evidence is malformed at byte {at} (a section or the end expected)")
        name, size = section.group(1).decode(), int(section.group(2))
        start = section.end()
        if start + size > len(data):
            raise EvidenceError(f"its evidence section {name!r} is cut short")
        if name in parts and name != _CHUNKED:
            raise EvidenceError(f"its evidence holds {name!r} twice")
        parts.setdefault(name, []).append(view[start : start + size])
        at, count = start + size, count + 1
