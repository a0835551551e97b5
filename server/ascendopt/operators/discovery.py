"""Find the AscendC operators under a folder and describe each one.

Each folder is offered to the layouts (layouts/, in `LAYOUTS` order; at most one claims it):

* ``cann_open`` — ``op_host/<op>_tiling.cpp``, ``op_kernel/<op>_tiling_data.h``
  (a plain struct), kernel with GET_TILING_DATA_WITH_STRUCT / tiling keys;
* ``msopgen`` — ``op_host/<op>.cpp`` (TilingFunc + OpDef), ``op_host/<op>_tiling.h``
  (BEGIN_TILING_DATA_DEF…), ``op_kernel/<op>.cpp``;
* ``kernel_launch`` — a kernel ``.cpp`` plus ``main.cpp`` launching it with ``<<<…>>>``;
* ``torch_extension`` — a kernel ``.cpp`` plus a ``pybind11.cpp`` whose function launches it (its
  operators run as kernel-launch samples whose main computes the tiling).

A problem in one operator becomes an Issue on that operator (file and line);
the rest of the tree is still discovered. What is checked across operators: checks.py.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ascendopt.operators import checks
from ascendopt.operators.issues import Issue, SpecError
from ascendopt.operators.layouts import layout_of
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.sources import SKIP_DIRS
from ascendopt.operators.spec import OperatorSpec, load_spec


class Discovery(BaseModel):
    operators: list[OperatorProject] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)  # problems not tied to one discovered operator
    # (absolute file, entry) → why a kernel entry did not become an operator (issues at the end)
    unclaimed: dict[tuple[str, str], str] = Field(default_factory=dict, exclude=True)
    # absolute kernel file → why it is another SoC's variant of an operator (never a name clash)
    variants: dict[str, str] = Field(default_factory=dict, exclude=True)
    # specs kept outside the tree (`--spec`, the editor's `ascendopt.specs`): operator name →
    # (file, the spec read from it)
    external_specs: dict[str, tuple[Path, OperatorSpec]] = Field(default_factory=dict, exclude=True)

    def find(self, name: str) -> OperatorProject:
        for op in self.operators:
            if op.name == name:
                return op
        names = ", ".join(o.name for o in self.operators) or "none"
        raise KeyError(f"no operator named {name!r} (found: {names})")


def discover(root: Path, specs: Sequence[Path] = ()) -> Discovery:
    """Every operator under `root`. `specs`: spec files kept outside the tree (`--spec`), each for
    the operator it names; its reference is beside it, so the user's checkout stays clean."""
    root = root.resolve()
    result = Discovery()
    for path in specs:
        try:
            spec = load_spec(path)
            result.external_specs.setdefault(spec.name, (path.resolve(), spec))
        except SpecError as exc:
            result.issues.extend(exc.issues)
        except OSError as exc:
            result.issues.append(Issue(file=str(path), message=f"cannot read this spec: {exc.strerror}"))
    if root.is_file():
        root = root.parent
    if not root.is_dir():
        result.issues.append(Issue(file=str(root), message="no such folder"))
        return result
    for dirpath, dirnames, _ in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        here = Path(dirpath)
        layout = layout_of(here)
        if layout is not None:
            result.operators.extend(layout.describe(here, result))
            dirnames[:] = [d for d in dirnames if d not in layout.owns]
    checks.flag_duplicate_names(result)
    checks.report_unclaimed(root, result)
    result.operators.sort(key=lambda o: (str(o.root), o.name))
    return result


def operator_root_of(path: Path, stop: Path | None = None) -> Path | None:
    """The folder `discover` would read as the operator holding `path` (a file, or a folder: itself
    first; one a layout claims: a folder with op_kernel/ and op_host/, or one with main.cpp), looking
    no higher than `stop`."""
    start = path if path.is_dir() else path.parent
    for folder in [start, *start.parents]:
        if layout_of(folder) is not None:
            return folder
        if folder == stop or (stop is not None and stop not in folder.parents):
            return None
    return None


def load_operator(path: Path, name: str | None = None, spec: Path | None = None) -> OperatorProject:
    """The one operator at `path` (or the one named `name` under it); KeyError if absent or ambiguous.
    `spec`: its spec kept outside the tree (`--spec`)."""
    if spec is not None and not spec.is_file():
        raise KeyError(f"no spec file {spec}")
    found = discover(path, [spec] if spec is not None else [])
    up = operator_root_of(path.resolve()) if not found.operators and path.exists() else None
    if up is not None and up != path.resolve():
        # A file or a folder inside an operator (`op_kernel/add.cpp`, `op_host/`): the operator
        # holding it, not advice about that file as if it were the operator (issue 29).
        return load_operator(up, name, spec)
    if spec is not None and not found.external_specs:
        problems = [str(i) for i in found.issues if Path(i.file) == spec]
        raise KeyError("\n".join(problems) or f"{spec}: not a usable spec")
    here = [o for o in found.operators if o.root == path.resolve()] or found.operators
    if name is None and spec is not None and len(here) > 1:
        # The spec names its operator: that one, among several in the folder (issue 28). (With one
        # operator, a spec naming another is refused as such by the caller.)
        name = next(iter(found.external_specs))
    if name is not None:
        return found.find(name)
    if len(here) == 1:
        return here[0]
    if not here:
        detail = "; ".join(str(i) for i in found.issues) or "no kernel entry found"
        raise KeyError(f"no AscendC operator under {path}: {detail}")
    raise KeyError(f"{path} holds several operators ({', '.join(o.name for o in here)}); name one")
