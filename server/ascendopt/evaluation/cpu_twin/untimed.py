"""Scalar work on GM through raw pointers, found in the kernel's source: the twin neither checks
nor times it (its sanitizer and trace see only AscendC calls), so an estimate cannot vouch for
a kernel that moves work there. (Stores through such a pointer are found after each block's
slice by the runtime, counted as written, bounds-checked and timed as scalar GM stores; reads and
the scalar work around them stay unseen, so the finding stays.)

Each site becomes a warning finding whose message quotes the code; the episode refuses a
candidate with a site its baseline lacks (`agent/episode.py`, new warnings). The runtime adds
`raw_gm_pointer` / `raw_ub_pointer` for every `GetPhyAddr()` actually called on a GlobalTensor /
LocalTensor, which no macro can hide; the twin's internals cannot be named in a kernel at all
(`cpu_twin/include/ascendopt_twin/seal.h`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ascendopt.evaluation.records import Finding
from ascendopt.operators.cpp_source import COMMENT
from ascendopt.operators.includes import closure, resolve_in_files
from ascendopt.operators.preproc import inactive_lines

KIND = "raw_gm_access"
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_GM_PARAM = re.compile(r"\bGM_ADDR\s+(\w+)")
# The sanctioned uses of GM pointers: handing them to SetGlobalBuffer, or a list block to ListTensorDesc
# (whose parsing the twin implements and checks); their argument lists are not scanned.
_SANCTIONED = re.compile(r"\bSetGlobalBuffer\s*\(|\bListTensorDesc\b\s*(?:\w+\s*)?\(")
# A data pointer taken from a list (`__gm__ T *x = list.GetDataPtr<T>(i)`, also cast) is no work on GM.
_FROM_LIST = r"(?!\s*(?:\([^()]*\)\s*)?[\w.]+\s*\.\s*GetDataPtr\s*<)"


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))  # keep offsets and line numbers


def _outside_sanctioned(code: str) -> str:
    """`code` with the argument lists of the sanctioned calls blanked (also `list.Init(…)` of a
    declared ListTensorDesc)."""
    lists = sorted(set(re.findall(r"\bListTensorDesc\s+(\w+)", code)))
    inits = [rf"\b{re.escape(n)}\s*\.\s*Init\s*\(" for n in lists]
    sanctioned = re.compile("|".join([_SANCTIONED.pattern, *inits]))
    out = list(code)
    for m in sanctioned.finditer(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            if code[i] != "\n":
                out[i] = " "
            i += 1
    return "".join(out)


def raw_gm_findings(path: str, source: str) -> list[Finding]:
    code = _STRING.sub(_blank, COMMENT.sub(_blank, source))
    names = sorted(set(_GM_PARAM.findall(code)))
    scan = _outside_sanctioned(code)
    uses = [
        r"\bGetPhyAddr\b",
        rf"\(\s*__gm__\b[^()]*\*\s*\){_FROM_LIST}",
        rf"__gm__[^;(){{}}]*\*\s*\w+\s*={_FROM_LIST}",
    ]
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
                    message=(
                        "raw GM pointer work: stores are counted, reads and the scalar work around them "
                        f"the twin neither checks nor times: `{text}`"
                    ),
                )
            )
    return findings


def compiled_kernel_files(kernel: str, files: Mapping[str, str], macros: dict[str, int]) -> dict[str, str]:
    """The kernel source and the carried headers its build compiles (quoted includes followed from
    it, resolved among `files` as g++ would: the including file's folder, then op_kernel/, op_host/,
    the operator root), each with the lines the SoC's `macros` leave out blanked. Headers of other
    architectures (`arch35/…`, never included by a 910B build) are not among them. A branch whose
    condition cannot be read counts as compiled: this scan must not miss what a build might see."""
    walk = closure(
        [kernel],
        files.get,
        lambda including, name: resolve_in_files(files, including, name),
        macros=macros,
        unknown_inactive=False,
    )
    out: dict[str, str] = {}
    for path, text in walk.texts.items():
        off = inactive_lines(text, macros, unknown_inactive=False)
        out[path] = "\n".join("" if n in off else line for n, line in enumerate(text.split("\n"), start=1))
    return out
