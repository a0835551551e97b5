"""The one include closure (operators/includes.py) and what each of its three callers asks of it,
on a look-alike open-repo operator: a header included under an `#if` the 910B build leaves out,
one under a condition nobody can read, a repo-level header and a header found nowhere."""

from __future__ import annotations

from pathlib import Path

from ascendopt.evaluation.cpu_twin.untimed import compiled_kernel_files
from ascendopt.operators import includes
from ascendopt.operators.knobs import knob_headers
from ascendopt.operators.repository import include_closure
from ascendopt.operators.soc import arch_macros

KERNEL = """#include "kernel_operator.h"
#include "foo.h"
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
#include "foo_v35.h"
#endif
#if SOME_OPTION
#include "foo_option.h"
#endif
"""
TILING = '#include "op_host/shared.h"\n#include "nowhere.h"\n'
FILES = {
    "op_kernel/foo.cpp": KERNEL,
    "op_kernel/foo.h": "constexpr int BUFFER_NUM = 2;\n",
    "op_kernel/foo_v35.h": "constexpr int BUFFER_NUM = 4;\n",
    "op_kernel/foo_option.h": "",
    "op_host/foo_tiling.cpp": TILING,
}
B4 = arch_macros("Ascend910B4")


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "common" / "inc" / "op_host").mkdir(parents=True)
    (repo / "common" / "inc" / "op_host" / "shared.h").write_text('#include "foo.h"\n')
    op = repo / "math" / "foo"
    for rel, text in FILES.items():
        (op / rel).parent.mkdir(parents=True, exist_ok=True)
        (op / rel).write_text(text)
    return repo, op


def test_quoted_includes_read_the_branches_as_asked() -> None:
    every = ["kernel_operator.h", "foo.h", "foo_v35.h", "foo_option.h"]
    assert [n for n, _ in includes.quoted_includes(KERNEL)] == every
    assert includes.quoted_includes(KERNEL, B4) == [("kernel_operator.h", 1), ("foo.h", 2)]
    compiled_or_unknown = includes.quoted_includes(KERNEL, B4, unknown_inactive=False)
    assert [n for n, _ in compiled_or_unknown] == ["kernel_operator.h", "foo.h", "foo_option.h"]
    assert [n for n, _ in includes.quoted_includes(KERNEL, arch_macros("Ascend950"))] == every[:3]


def test_resolve_in_files_looks_beside_then_in_the_operator_folders() -> None:
    files = {"op_kernel/a.h": "", "op_host/a.h": "", "a.h": "", "op_kernel/sub/b.h": "", "b.h": ""}
    assert includes.resolve_in_files(files, "op_host/x.cpp", "a.h") == "op_host/a.h"
    assert includes.resolve_in_files(files, "other/x.cpp", "a.h") == "op_kernel/a.h"
    assert includes.resolve_in_files(files, "op_kernel/sub/x.cpp", "b.h") == "op_kernel/sub/b.h"
    assert includes.resolve_in_files(files, "op_kernel/x.cpp", "sub/b.h") == "op_kernel/sub/b.h"
    assert includes.resolve_in_files(files, "op_kernel/x.cpp", "c.h") is None


def test_closure_follows_reads_and_reports_found_nowhere() -> None:
    walk = includes.closure(
        ["op_kernel/foo.cpp"],
        FILES.get,
        lambda including, name: includes.resolve_in_files(FILES, including, name),
        macros=B4,
    )
    assert list(walk.texts) == ["op_kernel/foo.cpp", "op_kernel/foo.h"]
    assert [(i.name, i.line, i.target) for i in walk.includes] == [
        ("kernel_operator.h", 1, None),
        ("foo.h", 2, "op_kernel/foo.h"),
    ]
    stopped = includes.closure(["op_kernel/foo.cpp"], FILES.get, lambda *_: None, stop=lambda: True)
    assert stopped.texts == {} and stopped.includes == []


def test_open_repo_closure_carries_every_branch_and_the_repo_header(tmp_path: Path) -> None:
    repo, op = _repo(tmp_path)
    sources = ["op_kernel/foo.cpp", "op_host/foo_tiling.cpp"]
    found, missing = include_closure(op, repo, sources, [*includes.OPERATOR_FOLDERS, "../../common/inc"])
    # Outside the operator folder only; inside it every branch is read (nothing under an #if is missed).
    assert found == {"../../common/inc/op_host/shared.h": repo / "common" / "inc" / "op_host" / "shared.h"}
    assert sorted((m.header, m.file, m.line) for m in missing) == [
        ("kernel_operator.h", "op_kernel/foo.cpp", 1),
        ("nowhere.h", "op_host/foo_tiling.cpp", 2),
    ]
    assert next(m for m in missing if m.header == "nowhere.h").searched == [
        "op_host",
        "op_kernel",
        ".",
        "../../common/inc",
    ]


def test_knob_headers_follow_only_what_the_socs_build_compiles(tmp_path: Path) -> None:
    _, op = _repo(tmp_path)
    got = knob_headers(op, ["op_kernel/foo.cpp"], ["op_host/foo_tiling.cpp"], B4)
    # Not foo_v35.h (3510 only), not foo_option.h (unknown), not the repo's shared.h (not the operator's).
    assert got == {"op_kernel/foo.h": ("kernel", (op / "op_kernel" / "foo.h").resolve())}
    on_950 = knob_headers(op, ["op_kernel/foo.cpp"], [], arch_macros("Ascend950"))
    assert sorted(on_950) == ["op_kernel/foo.h", "op_kernel/foo_v35.h"]


def test_raw_gm_scan_reads_an_unknown_branch_as_compiled() -> None:
    got = compiled_kernel_files("op_kernel/foo.cpp", FILES, B4)
    assert list(got) == ["op_kernel/foo.cpp", "op_kernel/foo_option.h", "op_kernel/foo.h"]
    assert got["op_kernel/foo.cpp"].split("\n")[3] == ""  # the 3510-only include, blanked
