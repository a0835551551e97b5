"""What a candidate's findings are held against: the baseline's. A finding the baseline does not
have rejects a candidate, whatever its speed."""

from __future__ import annotations

import re

from ascendopt.evaluation.records import Evaluation, Finding


def new_findings(evaluation: Evaluation, baseline: Evaluation | None) -> list[Finding]:
    """Findings (warnings included) a candidate has and its baseline has not.

    Compared by kind and message with the numbers taken out (lines move with every edit). A
    warning the user may live with in their own code is an error for a candidate: a pipe
    hazard it introduces (removing a sync the compiler would put back is no speedup), raw GM
    pointer work the twin neither checks nor times, a write into an input, a cast overflow.
    """
    if baseline is None:
        return []
    known = {_finding_key(f) for f in baseline.findings()}
    out: list[Finding] = []
    for f in evaluation.findings():
        if _finding_key(f) not in known and all(_finding_key(f) != _finding_key(o) for o in out):
            out.append(f)
    return out


def findings_reason(added: list[Finding]) -> str:
    first = added[0]
    where = f" at {first.file}:{first.line}" if first.file else ""
    more = f" (and {len(added) - 1} more)" if len(added) > 1 else ""
    return f"introduces {first.kind}{where} that the baseline does not have: {first.message}{more}"


def _finding_key(f: Finding) -> tuple[str, str]:
    return f.kind, re.sub(r"\d+", "#", f.message)
