"""Diagnostics: discovery's issues (spec, parse, layout) and the last Verify/Profile's compile errors
and sanitizer findings, on the file and line they name. Files that no longer have any are cleared."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ascendopt.evaluation.records import Evaluation
from ascendopt.lsp import edit_checks
from ascendopt.lsp.feature import FeatureState
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.locations import line_range, path_to_uri, read_lines
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.quickfix import DOC_FOR_FINDING

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


class Published(FeatureState):
    """The documents that carry our diagnostics now (written here only)."""

    def __init__(self) -> None:
        self.uris: set[str] = set()


def _resolve(root: Path, file: str) -> Path | None:
    if not file or file == "?":
        return None
    p = Path(file)
    return p if p.is_absolute() else root / p


def _evaluation_issues(op: OperatorProject, ev: Evaluation) -> list[tuple[Issue, str]]:
    """(issue, source) pairs; a failed case with no located finding lands on the kernel entry."""
    source = f"ascendopt ({ev.backend})"
    out = [(i, source) for i in ev.compile_errors]
    for f in ev.findings():
        issue = f.as_issue()
        if f.count > 1:
            issue.message += f" (×{f.count})"
        if not f.file:
            issue.file, issue.line = op.files.kernel, op.kernel.range.start_line
        out.append((issue, source))
    located = any(f.file for f in ev.findings())
    for case in ev.cases:
        if case.status != "passed" and not located:
            out.append(
                (
                    Issue(
                        file=op.files.kernel,
                        line=op.kernel.range.start_line,
                        message="; ".join(
                            [f"case {case.name}: {case.message or case.status}"]
                            + [o.mismatch_text() for o in case.outputs if not o.passed]
                        ),
                    ),
                    source,
                )
            )
    if ev.status == "error":
        out.append((Issue(file=op.files.kernel, line=op.kernel.range.start_line, message=ev.message), source))
    return out


def collect(ls: AscendServer) -> dict[Path, list[types.Diagnostic]]:
    pending: list[tuple[Path, Issue, str]] = []
    for op in ls.state(Folders).index.operators():
        pending.extend((p, i, "ascendopt") for i in op.issues if (p := _resolve(op.root, i.file)))
        run = ls.state(Runs).last_runs.get(op_key(op))
        if run is not None:
            pending.extend(
                (p, i, src)
                for i, src in _evaluation_issues(op, run.evaluation)
                if (p := _resolve(op.root, i.file))
            )
        pending.extend(
            (p, i, edit_checks.SOURCE) for i in edit_checks.issues(ls, op) if (p := _resolve(op.root, i.file))
        )
    loose = ls.state(Folders).index.loose_issues()
    pending.extend((Path(i.file), i, "ascendopt") for i in loose if Path(i.file).is_absolute())

    lines: dict[Path, list[str]] = {}
    out: dict[Path, list[types.Diagnostic]] = {}
    for path, issue, source in pending:
        if path not in lines:
            lines[path] = current_lines(ls, path)
        diag = types.Diagnostic(
            range=line_range(lines[path], issue.line, issue.column if issue.column > 1 else None),
            message=issue.message,
            severity=_SEVERITY.get(issue.severity, types.DiagnosticSeverity.Error),
            code=issue.code,
            code_description=types.CodeDescription(href=DOC_FOR_FINDING[issue.code])
            if issue.code in DOC_FOR_FINDING
            else None,
            source=source,
        )
        if diag not in out.setdefault(path, []):
            out[path].append(diag)
    return out


def current_lines(ls: AscendServer, path: Path) -> list[str]:
    """The editor's text when the file is open (its lines may have moved), else the disk's."""
    doc = ls.workspace.text_documents.get(path_to_uri(path))
    return list(doc.lines) if doc is not None else read_lines(path)


def publish(ls: AscendServer) -> None:
    by_uri = {path_to_uri(p): d for p, d in collect(ls).items()}
    for uri in sorted(ls.state(Published).uris - by_uri.keys()):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    for uri, diags in sorted(by_uri.items()):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
    ls.state(Published).uris = set(by_uri)
