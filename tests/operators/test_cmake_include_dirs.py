"""An open repository's include folders come from its CMake (issue 28): a repository that keeps its
shared headers in `common/include`, listed in `OP_TILING_INCLUDE`, builds; a header said absent was
searched for in the whole repository first (look-alikes written here)."""

from __future__ import annotations

from pathlib import Path

from ascendopt.evaluation.cpu_twin.build import explain_missing_headers
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import Issue
from ascendopt.operators.repository import cmake_include_dirs, repo_places
from tests.operators.cann_open_style import write_repo

CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(ops_lookalike)
set(SHARED_ROOT ${CMAKE_CURRENT_SOURCE_DIR}/common)
set(OP_TILING_INCLUDE
    ${CMAKE_CURRENT_SOURCE_DIR}
    ${SHARED_ROOT}/include   # shared tiling helpers
    ${THIRD_PARTY_DIR}/nothing
)
list(APPEND OP_TILING_INCLUDE "${PROJECT_SOURCE_DIR}/common/include/kernel")
include_directories($<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/gen> utils/include)
target_include_directories(optiling PRIVATE ${CMAKE_SOURCE_DIR}/outside/../../elsewhere)
"""


def _repo(tmp_path: Path, *, stray: bool = False) -> Path:
    op_root = write_repo(tmp_path)
    (tmp_path / "CMakeLists.txt").write_text(CMAKE)
    for rel in ("common/include/tiling/lookalike_base.h", "common/include/kernel/k.h", "utils/include/u.h"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("#pragma once\n")
    (tmp_path / "gen").mkdir()
    tiling = op_root / "op_host" / "scale_norm_tiling.cpp"
    extra = '#include "tiling/lookalike_base.h"\n' + ('#include "stray/only_here.h"\n' if stray else "")
    tiling.write_text(extra + tiling.read_text())
    if stray:
        (tmp_path / "vendor" / "stray").mkdir(parents=True)
        (tmp_path / "vendor" / "stray" / "only_here.h").write_text("#pragma once\n")
    return op_root


def test_the_include_folders_are_read_from_the_cmake(tmp_path: Path) -> None:
    _repo(tmp_path)
    # the root, the variable expanded, the list appended to, include_directories' relative path; not
    # an unknown variable, a generator expression or a folder outside the repository
    assert cmake_include_dirs(tmp_path) == ["", "common/include", "common/include/kernel", "utils/include"]


def test_a_header_in_a_folder_the_cmake_lists_is_carried(tmp_path: Path) -> None:
    op = load_operator(_repo(tmp_path))
    assert op.repo is not None
    assert "common/include" in op.repo.include_dirs
    assert "../../common/include/tiling/lookalike_base.h" in op.files.context
    assert not [u for u in op.repo.unresolved if u.header == "tiling/lookalike_base.h"]


def test_a_header_the_include_path_misses_is_found_and_said_so(tmp_path: Path) -> None:
    op = load_operator(_repo(tmp_path, stray=True))
    assert op.repo is not None
    [stray] = [u for u in op.repo.unresolved if u.header == "stray/only_here.h"]
    assert stray.elsewhere == ["vendor/stray/only_here.h"]
    toolchain = [u for u in op.repo.unresolved if u.header == "log/log.h"]
    assert toolchain and all(u.elsewhere == [] for u in toolchain)  # searched for, nowhere in the repository
    issue = Issue(
        file="op_host/scale_norm_tiling.cpp", line=2, message="stray/only_here.h: No such file or directory"
    )
    [told] = explain_missing_headers([issue], op)
    assert "The repository has it at vendor/stray/only_here.h" in told.message
    assert "neither" not in told.message and "nowhere" not in told.message
    gone = Issue(file="op_host/scale_norm_tiling.cpp", line=9, message="log/log.h: No such file or directory")
    [absent] = explain_missing_headers([gone], op)
    assert (
        "nowhere in the operator folder or its repository" in absent.message
        and "all of it searched" in absent.message
    )


def test_repo_places_searches_the_whole_repository(tmp_path: Path) -> None:
    _repo(tmp_path)
    assert repo_places(tmp_path, "kernel/k.h") == ["common/include/kernel/k.h"]
    assert repo_places(tmp_path, "no/such.h") == []
