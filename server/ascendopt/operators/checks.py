"""The checks discovery makes on what the layouts found, each an Issue at the file and line it is
about: kernel entries no layout claimed (never silent), two operators with one name, what the CPU
twin cannot launch (and the note that main.cpp's own host code runs), and a spec that disagrees
with its kernel or names a reference that is not there."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ascendopt.operators import extract, launch
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.issues import Issue
from ascendopt.operators.model import HostProgram, KernelEntry, OpDefInfo, OperatorProject
from ascendopt.operators.sources import KERNEL_SUFFIXES, MAX_SOURCE_BYTES, SKIP_DIRS, read_source
from ascendopt.operators.spec import OperatorSpec
from ascendopt.operators.toml_lines import TomlLineIndex

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


def report_unclaimed(root: Path, result: Discovery) -> None:
    """Never silent: every `__global__` definition under `root` that did not become an operator
    gets an issue with its file, line and the reason."""
    claimed = {(str((op.root / op.files.kernel).resolve()), op.name) for op in result.operators}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        here = Path(dirpath)
        for fname in sorted(filenames):
            path = here / fname
            if not fname.endswith((*KERNEL_SUFFIXES, ".h", ".hpp")):
                continue
            try:
                if path.stat().st_size > MAX_SOURCE_BYTES or b"__global__" not in path.read_bytes():
                    continue
            except OSError:
                continue
            src = read_source(path, result.issues)
            if src is None:
                continue
            test_kernel = _in_operator_tests(here)
            for name, fn in extract.kernel_entries(src):
                if (str(path.resolve()), name) in claimed or str(path.resolve()) in result.variants:
                    continue
                reason = result.unclaimed.get((str(path.resolve()), name))
                if test_kernel:
                    reason = f"kernel entry {name!r} is in an operator's tests/ (a unit-test kernel)"
                result.issues.append(
                    Issue(
                        file=str(path),
                        line=fn.start_point[0] + 1,
                        severity="info" if test_kernel else "error",
                        code="not-understood",
                        message=reason or _why_unclaimed(here, name),
                    )
                )


def _in_operator_tests(folder: Path) -> bool:
    """Inside `<op>/tests/` of an operator folder (op_host/ + op_kernel/ beside tests/)."""
    for parent in (folder, *folder.parents):
        if (
            parent.name == "tests"
            and (parent.parent / "op_kernel").is_dir()
            and (parent.parent / "op_host").is_dir()
        ):
            return True
    return False


def _why_unclaimed(folder: Path, name: str) -> str:
    if folder.name == "op_kernel":
        return (
            f"kernel entry {name!r} is in op_kernel/ but was not read as an operator "
            "(the kernel is op_kernel/<op>.cpp beside op_host/<op>.cpp)"
        )
    if (folder / "main.cpp").exists():
        return f"kernel entry {name!r} is not launched from main.cpp"
    return (
        f"kernel entry {name!r} is outside every layout ascendopt reads: expected op_host/ + op_kernel/ "
        "(msOpGen, CANN open repos), a main.cpp beside it that launches it (kernel launch), or a "
        "pybind11 source beside it (PYBIND11_MODULE) whose function launches it (torch extension)"
    )


def flag_duplicate_names(result: Discovery) -> None:
    by_name: dict[str, list[OperatorProject]] = {}
    for op in result.operators:
        by_name.setdefault(op.name, []).append(op)
    for name, ops in by_name.items():
        if len(ops) < 2:
            continue
        for op in ops:
            others = ", ".join(str(o.root / o.files.kernel) for o in ops if o is not op)
            # Two projects of a library may share a kernel name (Huawei's samples do): each is still
            # usable from its own folder. Two in one project folder cannot be told apart.
            shared = any(o.root == op.root for o in ops if o is not op)
            op.issues.append(
                Issue(
                    file=op.files.kernel,
                    line=op.kernel.range.start_line,
                    severity="error" if shared else "warning",
                    message=f"kernel name {name!r} is also claimed by {others}"
                    + ("" if shared else "; name this one by its folder"),
                    code="duplicate",
                )
            )


def runs_main_note(main: CppSource, program: HostProgram) -> Issue:
    if program.call is not None:
        return Issue(
            file=main.path,
            line=program.line,
            severity="info",
            message=f"a torch extension: {program.call.function} fills what the kernel gets; the CPU twin "
            f"builds {main.path} against its stand-in of torch and calls the function with each case's "
            "tensors (its tensor parameters are the inputs, its scalars attrs, what it returns the outputs)",
        )
    return Issue(
        file=main.path,
        line=program.line,
        severity="info",
        message="main.cpp's own host code fills what the kernel gets ("
        + ", ".join(program.calls)
        + "): the CPU twin builds and runs main.cpp in CPU-debug mode, as `run.sh -r cpu` does, with "
        + (" and ".join(program.sources) if program.sources else "no other host source")
        + ". Shapes are the ones main.cpp fixes; the cases cannot vary them",
    )


def unsupported(
    kernel: KernelEntry,
    path: str,
    main: CppSource | None = None,
    launch_site: tuple[launch.LaunchSite, dict[str, tuple[str, str]]] | None = None,
) -> list[Issue]:
    """What the CPU twin cannot launch yet, on the line that causes it (verify refuses these)."""
    out = []
    line = kernel.range.start_line
    handed = launch.handed_to_host_code(main) if main is not None else {}
    args = launch_site[0].args if launch_site is not None else []
    for i, p in enumerate(kernel.params):
        var = next((w for w in reversed(args[i].split()) if w in handed), None) if i < len(args) else None
        if p.role == "tiling" and main is not None and var is not None:
            callee, at = handed[var]
            out.append(
                Issue(
                    file=main.path,
                    line=at,
                    code="unsupported",
                    message=f"the tiling buffer `{p.name}` of {kernel.name} is filled by main.cpp's host "
                    f"code here ({callee}(…) into what the launch passes as `{var}`): the CPU twin runs no "
                    "host code of a kernel-launch sample, so the kernel would read no tiling. To verify "
                    "here, have scripts/gen_data.py write those bytes to an ./input file and ReadFile them "
                    f"into `{var}`",
                )
            )
            continue
        if not p.by_value or p.role == "input":  # an input read from a file is passed by its bytes
            continue
        if main is not None and var is not None:
            callee, at = handed[var]
            out.append(
                Issue(
                    file=main.path,
                    line=at,
                    code="unsupported",
                    message=f"parameter `{p.type} {p.name}` of {kernel.name} is passed by value and "
                    f"main.cpp fills it in code here ({callee}(…{var}…)): the CPU twin runs the kernel with "
                    "bytes from an ./input file, not main.cpp's host code. To verify here, have "
                    f"scripts/gen_data.py write the finished struct to the file main.cpp reads into `{var}` "
                    "and drop the call",
                )
            )
            continue
        out.append(
            Issue(
                file=path,
                line=line,
                code="unsupported",
                message=f"parameter `{p.type} {p.name}` of {kernel.name} is passed by value and "
                "main.cpp fills it in code, not from an ./input file: the CPU twin cannot make it",
            )
        )
    if kernel.template is not None and kernel.template_args is None and not kernel.tiling_key_template:
        out.append(
            Issue(
                file=path,
                line=line,
                code="unsupported",
                message=f"kernel entry {kernel.name} is a template {kernel.template} and no launch names "
                "its template arguments (tiling-key instantiation via ASCENDC_TPL_SEL is not modelled)",
            )
        )
    return out


def spec_vs_kernel(
    spec: OperatorSpec,
    kernel: KernelEntry,
    spec_file: str,
    root: Path,
    opdef: OpDefInfo | None = None,
    kernel_src: CppSource | None = None,
) -> list[Issue]:
    """What the spec says that its operator contradicts, on the spec's line: tensor counts, tensor
    names (CANN's build names `DTYPE_<NAME>` after the OpDef's tensors, and so does the twin after the
    spec's: a name that differs would surface as a g++ error in the untouched kernel), the reference."""
    issues = []
    try:
        index = TomlLineIndex((root / spec_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        index = TomlLineIndex("")
    # An output the kernel writes into its input (kernel_argument = false) has no parameter of its own.
    outputs = [t for t in spec.outputs if t.kernel_argument]
    for role, declared in (("input", spec.inputs), ("output", outputs)):
        got = kernel.names(role)  # type: ignore[arg-type]
        if len(got) != len(declared):
            issues.append(
                Issue(
                    file=spec_file,
                    line=index.line_of((f"{role}s", 0)),
                    message=f"the spec declares {len(declared)} {role}(s) "
                    f"({', '.join(t.name for t in declared)}) but kernel {kernel.name} "
                    f"takes {len(got)} ({', '.join(got) or 'none'})",
                )
            )
    issues += _tensor_names(spec, kernel, spec_file, index, opdef, kernel_src)
    line = index.line_of(("reference",))
    for message in reference_problems(root, spec.reference) if spec.oracle is None else []:
        issues.append(Issue(file=spec_file, line=line, message=message))
    return issues


# `DTYPE_X` in a kernel: the macro CANN's build defines per tensor (the twin from the spec's names).
_DTYPE_USE = re.compile(r"\bDTYPE_([A-Za-z0-9_]+)\b")
_DTYPE_DEFINED = re.compile(r"^\s*#\s*(?:define|ifn?def)\s+DTYPE_([A-Za-z0-9_]+)", re.M)


def _tensor_names(
    spec: OperatorSpec,
    kernel: KernelEntry,
    spec_file: str,
    index: TomlLineIndex,
    opdef: OpDefInfo | None,
    kernel_src: CppSource | None,
) -> list[Issue]:
    """A spec tensor named otherwise than the OpDef declares it (or, with no OpDef, than the kernel's
    `DTYPE_<NAME>` macros need): refused before any build (code `spec`), at the tensor's line."""
    tensors = [("input", i, t.name) for i, t in enumerate(spec.inputs)]
    tensors += [("output", i, t.name) for i, t in enumerate(spec.outputs) if t.kernel_argument]
    signature = f"kernel {kernel.name}({', '.join(p.name for p in kernel.params)})"
    issues = []
    if opdef is not None:
        declared = {"input": [t.name for t in opdef.inputs], "output": [t.name for t in opdef.outputs]}
        if not declared["input"] and not declared["output"]:
            return []
        for role, i, name in tensors:
            if name in declared[role]:
                continue
            other = "output" if role == "input" else "input"
            why = (
                f"the OpDef declares it as an {other}"
                if name in declared[other]
                else f"the OpDef {opdef.op_type} declares no such {role}"
            )
            issues.append(
                Issue(
                    file=spec_file,
                    line=index.line_of((f"{role}s", i, "name")),
                    code="spec",
                    message=f"{role} {name!r}: {why} (its {role}s: {', '.join(declared[role]) or 'none'}; "
                    f"{signature}). CANN's build names DTYPE_<NAME> and the tensors after the OpDef: "
                    "name the spec's tensors as the OpDef does",
                )
            )
        return issues
    if kernel_src is None:
        return []
    defined = {m.upper() for m in _DTYPE_DEFINED.findall(kernel_src.text)}
    names = {name.upper() for _, _, name in tensors}
    for macro in dict.fromkeys(_DTYPE_USE.findall(kernel_src.text)):
        if macro.upper() in names or macro.upper() in defined:
            continue
        line = kernel_src.text[: kernel_src.text.index(f"DTYPE_{macro}")].count("\n") + 1
        issues.append(
            Issue(
                file=spec_file,
                line=index.line_of(("inputs", 0, "name")),
                code="spec",
                message=f"{kernel_src.path}:{line} uses DTYPE_{macro}, which the build defines for a spec "
                f"tensor named {macro.lower()!r}, and the spec has none (its tensors: "
                f"{', '.join(n for _, _, n in tensors)}; {signature}): name the spec's tensors as the "
                "kernel does",
            )
        )
    return issues


def reference_problems(root: Path, reference: str) -> list[str]:
    """What is wrong with `file.py:function`, read without running it (a syntax error is the
    reference's own to report, at its line, when it runs)."""
    ref_file, _, func = reference.partition(":")
    path = root / ref_file
    if not path.is_file():
        return [f"reference file {ref_file} does not exist"]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
        return []
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    if func not in defined:
        return [f"reference file {ref_file} defines no function {func!r} (reference = {reference!r})"]
    return []
