"""Scalar work on GM through raw pointers, found in the kernel's source: the twin neither checks
nor times it (its sanitizer and trace see only AscendC calls), so an estimate cannot vouch for
a kernel that moves work there.

Each site becomes a warning finding whose message quotes the code; the episode refuses a
candidate with a site its baseline lacks (`agent/episode.py`, new warnings). The runtime adds
`raw_gm_pointer` for every `GetPhyAddr()` actually called, which no macro can hide.
"""

from __future__ import annotations

import re

from ascendopt.evaluation.records import Finding

KIND = "raw_gm_access"
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_GM_PARAM = re.compile(r"\bGM_ADDR\s+(\w+)")
_SET_GLOBAL = re.compile(r"\bSetGlobalBuffer\s*\(")


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))  # keep offsets and line numbers


def _outside_set_global_buffer(code: str) -> str:
    """`code` with the argument lists of SetGlobalBuffer(...) blanked (the sanctioned use of GM pointers)."""
    out = list(code)
    for m in _SET_GLOBAL.finditer(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            if code[i] != "\n":
                out[i] = " "
            i += 1
    return "".join(out)


def raw_gm_findings(path: str, source: str) -> list[Finding]:
    code = _STRING.sub(_blank, _COMMENT.sub(_blank, source))
    names = sorted(set(_GM_PARAM.findall(code)))
    scan = _outside_set_global_buffer(code)
    uses = [r"\bGetPhyAddr\b", r"\(\s*__gm__\b[^()]*\*\s*\)", r"__gm__[^;(){}]*\*\s*\w+\s*="]
    for name in names:  # a GM_ADDR parameter cast, indexed or offset outside SetGlobalBuffer
        uses += [
            rf"\)\s*\(?\s*{name}\b(?!\s*[,)])",
            rf"_cast\s*<[^>]*>\s*\(\s*{name}\b",
            rf"\b{name}\s*(?:\[|\+[^+=]|-[^-=>])",
        ]
    pattern = re.compile("|".join(f"(?:{u})" for u in uses))
    findings = []
    for n, line in enumerate(scan.split("\n"), start=1):
        if pattern.search(line):
            text = " ".join(source.split("\n")[n - 1].split())[:160]
            findings.append(
                Finding(
                    kind=KIND,
                    severity="warning",
                    file=path,
                    line=n,
                    message=f"raw GM pointer work the twin neither checks nor times: `{text}`",
                )
            )
    return findings
