"""The shipped operator templates: each with one line saying what it computes (the first line of
its reference's docstring), and a copy into a folder of the user's."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from pydantic import BaseModel

from ascendopt.operators.spec import SPEC_FILE
from ascendopt.resources import templates_dir


class TemplateInfo(BaseModel):
    name: str
    summary: str  # one line: what the operator computes


def _summary(folder: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse((folder / "reference.py").read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError):
        return ""
    paragraphs = [" ".join(p.split()) for p in doc.strip().split("\n\n") if p.strip()]
    if not paragraphs:
        return ""
    # "NumPy reference for add_custom: z = x + y, …" → "z = x + y, …"
    first = paragraphs[0]
    prefix = f"NumPy reference for {folder.name}"
    if first.startswith(prefix):
        first = first[len(prefix) :].lstrip(":, ")
    if "=" not in first and len(paragraphs) > 1:
        first = paragraphs[1]  # the first paragraph says how, the second what
    return first.split(". ", 1)[0].rstrip(".")  # one sentence


def list_templates() -> list[TemplateInfo]:
    base = templates_dir()
    return [
        TemplateInfo(name=d.name, summary=_summary(d))
        for d in sorted(p for p in base.iterdir() if (p / SPEC_FILE).exists())
    ]


class TemplateError(ValueError):
    pass


def copy_template(name: str, to: Path) -> Path:
    """Copy template `name` to `to/name`; TemplateError (one sentence) when it cannot."""
    src = templates_dir() / name
    if not name or "/" in name or not (src / SPEC_FILE).exists():
        raise TemplateError(f"no template named {name!r}; `ascendopt templates` lists them")
    dest = to / name
    if dest.exists():
        raise TemplateError(f"{dest} exists; choose another folder")
    shutil.copytree(src, dest)
    return dest
