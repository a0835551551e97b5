"""The remote CANN build gets the operator's whole project, as its layout defines it, and nothing else.

A look-alike msOpGen project (written here, in the official layout) whose own `build.sh` runs
through the default `build` step (`bash build.sh`) and checks what it can see on the host:
CMakePresets.json, CMakeLists.txt, cmake/, scripts/ and a local header must be there;
`.ascendopt/`, old build outputs and the VCS folder must not.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.evaluation.backends import ssh_evaluator
from ascendopt.evaluation.cann.cann_toolchain import CannToolchain
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from tests.evaluation.remote.conftest import settings_for
from tests.evaluation.remote.sshd_server import LoopbackSshd
from tests.evaluation.remote.test_cann import FAKE_COMMANDS, TEMPLATES, _published_fakes

BUILD_SH = """#!/bin/bash
# Look-alike of an msOpGen build.sh (tests only): refuses to build without its project.
set -e
for f in CMakePresets.json CMakeLists.txt cmake/config.cmake cmake/util/gen_ops.py \\
         scripts/install.sh op_host/local_math.h op_kernel/add_custom.cpp; do
  [ -f "$f" ] || { echo "build.sh: $f is missing" >&2; exit 1; }
done
for f in .ascendopt build_out/stale.run .git; do
  [ ! -e "$f" ] || { echo "build.sh: $f should have stayed home" >&2; exit 1; }
done
echo "[project build.sh] the whole project is here"
bash "$FAKE_CANN/fake_build.sh"
"""


def _project(tmp: Path) -> Path:
    root = tmp / "AddCustom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    (root / "build.sh").write_text(BUILD_SH)
    (root / "CMakePresets.json").write_text('{"version": 1, "configurePresets": []}\n')
    (root / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(opp)\n")
    (root / "cmake" / "util").mkdir(parents=True)
    (root / "cmake" / "config.cmake").write_text('set(ASCEND_COMPUTE_UNIT "ascend910b")\n')
    (root / "cmake" / "util" / "gen_ops.py").write_text("print('generating')\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "install.sh").write_text("#!/bin/bash\necho install\n")
    (root / "op_host" / "local_math.h").write_text(
        "#pragma once\ninline int CeilDivLocal(int a, int b) { return (a + b - 1) / b; }\n"
    )
    # What stays home: the workspace's own state, an old build, version control.
    (root / ".ascendopt").mkdir()
    (root / ".ascendopt" / "bank.json").write_text("{}\n")
    (root / "build_out").mkdir()
    (root / "build_out" / "stale.run").write_text("#!/bin/bash\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    return root


async def test_whole_project_goes_up_and_nothing_else(sshd: LoopbackSshd, tmp_path: Path) -> None:
    settings = settings_for(sshd, devices="0", toolchain="cann", cann=_published_fakes(sshd))
    settings.commands = {k: v for k, v in FAKE_COMMANDS.items() if k != "build"}  # the project's build.sh
    lines: list[str] = []
    evaluator = ssh_evaluator(["loopback"], None, settings)
    assert isinstance(evaluator.toolchain, CannToolchain)
    evaluator.toolchain.on_line = lines.append
    op = load_operator(_project(tmp_path))
    try:
        got = await verify(evaluator, op, case="0", seed=3)
    finally:
        await evaluator.close()
    assert got.status == "ok", (got.message, got.compile_errors, lines[-5:])
    assert got.correct
    assert "[project build.sh] the whole project is here" in lines
