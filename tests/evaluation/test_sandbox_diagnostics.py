from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ascendopt.evaluation import sandbox
from ascendopt.evaluation.cpu_twin.api import supported_names
from ascendopt.evaluation.cpu_twin.build import INCLUDE_DIR
from ascendopt.evaluation.diagnostics import map_diagnostics
from ascendopt.evaluation.sandbox import Limits, network_isolation_prefix, run_limited
from ascendopt.operators.issues import Issue


async def test_endless_loop_is_killed_at_the_wall_limit(tmp_path: Path) -> None:
    result = await run_limited([sys.executable, "-c", "while True: pass"], tmp_path, Limits(wall_seconds=1))
    assert result.timed_out and "wall-time" in (result.killed_reason or "")


async def test_runaway_allocation_is_stopped(tmp_path: Path) -> None:
    code = "x = []\nwhile True: x.append(bytearray(50_000_000))"
    result = await run_limited([sys.executable, "-c", code], tmp_path, Limits(wall_seconds=20, memory_mb=512))
    assert result.returncode != 0 and not result.timed_out


@pytest.mark.parametrize("prlimit", [True, False])
async def test_the_command_itself_runs_under_every_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prlimit: bool
) -> None:
    if not prlimit:  # where prlimit is not installed, the child sets them before its exec
        which = shutil.which
        monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "prlimit" else which(name))
    limits = Limits(wall_seconds=20, cpu_seconds=7, memory_mb=300, file_mb=5)
    result = await run_limited(["cat", "/proc/self/limits"], tmp_path, limits)
    assert result.returncode == 0, result.stderr
    rows = {line[:26].strip(): line[26:].split()[:2] for line in result.stdout.splitlines()[1:]}
    mb = 1024 * 1024
    assert rows["Max cpu time"] == ["7", "12"]
    assert rows["Max address space"] == [str(300 * mb)] * 2
    assert rows["Max file size"] == [str(5 * mb)] * 2
    assert rows["Max core file size"] == ["0", "0"]


async def test_no_network_inside(tmp_path: Path) -> None:
    if not network_isolation_prefix():
        pytest.skip("this kernel allows no network namespace here")
    code = "import socket\nprint(sorted(name for _, name in socket.if_nameindex()))"
    inside = await run_limited([sys.executable, "-c", code], tmp_path, Limits(wall_seconds=10))
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.strip() == "['lo']"


def test_errors_inside_twin_headers_land_on_the_user_line() -> None:
    stderr = (
        "op_kernel/k.cpp: In instantiation of 'void Kernel<T>::Compute() [with T = half]':\n"
        "op_kernel/k.cpp:40:20:   required from here\n"
        f"{INCLUDE_DIR}/kernel_operator.h:10:5: error: no matching function for call to 'Foo(int)'\n"
        "op_kernel/k.cpp:12:5: error: 'Mmad' is not a member of 'AscendC'\n"
    )
    fallback = Issue(file="op_kernel/k.cpp", line=3, message="build failed")
    issues = map_diagnostics(stderr, {"op_kernel/k.cpp"}, fallback, supported_names())
    assert [(i.file, i.line) for i in issues] == [("op_kernel/k.cpp", 40), ("op_kernel/k.cpp", 12)]
    assert "no matching function" in issues[0].message
    assert issues[1].message.startswith("`Mmad` is not supported by the CPU twin; supported:")
    assert "SSH" in issues[1].message


def test_an_error_in_an_included_header_lands_on_the_include_line() -> None:
    # The twin's kernel_operator_list_tensor_intf.h says with #error what it does not model.
    stderr = (
        "In file included from op_kernel/k.cpp:11:\n"
        f'{INCLUDE_DIR}/kernel_operator_list_tensor_intf.h:4:2: error: #error "no list tensors"\n'
        "op_kernel/k.cpp:84:14: error: 'ListTensorDesc' is not a member of 'AscendC'\n"
    )
    fallback = Issue(file="op_kernel/k.cpp", line=80, message="build failed")
    issues = map_diagnostics(stderr, {"op_kernel/k.cpp"}, fallback, supported_names())
    assert [(i.file, i.line) for i in issues] == [("op_kernel/k.cpp", 11), ("op_kernel/k.cpp", 84)]
    assert "no list tensors" in issues[0].message


@pytest.mark.slow
def test_a_failed_link_names_the_symbols_not_ld_s_last_line(tmp_path: Path) -> None:
    # ops-nn swi_glu's host tiling constructs a class whose virtual functions live in another
    # operator's host source: ld's last line says only "ld returned 1 exit status".
    (tmp_path / "tiling.cpp").write_text(
        "struct Base { virtual ~Base(); virtual bool IsCapable(); };\n"
        "int helper(int);\n"
        "int main() { Base b; return b.IsCapable() + helper(1); }\n"
    )
    run = subprocess.run(["g++", "tiling.cpp", "-o", "x"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0
    fallback = Issue(file="op_host/x_tiling.cpp", line=3, message="linking the operator failed")
    [issue] = map_diagnostics(run.stderr, set(), fallback)
    assert "undefined reference to `vtable for Base`" in issue.message
    assert "undefined reference to `helper(int)`" in issue.message
    assert "exit status" not in issue.message and issue.line == 3


_LEFT_PENDING = """
import asyncio
from pathlib import Path
from ascendopt.evaluation.sandbox import Limits, run_limited

async def main(k):
    asyncio.ensure_future(run_limited(["sleep", "0.05"], Path("."), Limits(wall_seconds=10)))
    for _ in range(k):
        await asyncio.sleep(0)

for k in range(8):  # main returns with the run pending: asyncio.run cancels every task, its own too
    asyncio.run(main(k))
print("ended")
"""


def test_a_run_cancelled_at_any_step_of_its_start_ends(tmp_path: Path) -> None:
    # asyncio's subprocess pipes, cancelled while connecting, waited forever (CPython gh-125502):
    # an init-spec whose build failed beside another still starting never exited.
    done = subprocess.run(
        [sys.executable, "-c", _LEFT_PENDING], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "ended", done.stderr
