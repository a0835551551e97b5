"""`ascendopt optimize` in a terminal: the patch it prints is the .patch it writes, byte for byte
(no markup, emoji or highlighting interpreted), and the key appears in no output or file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent import hostile
from tests.agent.scripted_llm import ScriptedLLMServer
from tests.agent.test_kernel_rewrite import _single_buffered

pytestmark = pytest.mark.slow
KEY = "sk-cli-KEY-5e1d0c9b8a7f"
MARKUP = "  // zp[k] = xp[k] + yp[k]; [bold]not bold[/bold] [/] :smile: [link=x]y[/link]"


def test_the_printed_patch_is_the_written_patch(add_op: Path, tmp_path: Path) -> None:
    _single_buffered(add_op)

    def reply(messages: list[dict[str, str]]) -> str:
        if "Answer with JSON only" in messages[-1]["content"]:
            return '{"bottleneck": "copy-in does not overlap compute", "change": "double buffer"}'
        return hostile.double_buffer() + hostile.block(hostile.KERNEL, hostile.ADD, hostile.ADD + MARKUP)

    cache = tmp_path / "cache"
    with ScriptedLLMServer(reply) as server:
        env = {
            **os.environ,
            "XDG_CACHE_HOME": str(cache),
            "ASCENDOPT_LLM_API_KEY": KEY,
            "ASCENDOPT_LLM_BASE_URL": server.base_url,
            "ASCENDOPT_LLM_MODEL": "scripted",
            "COLUMNS": "80",
        }
        done = subprocess.run(
            [sys.executable, "-m", "ascendopt", "optimize", str(add_op), "--budget", "8", "--seed", "4"],
            env=env,
            capture_output=True,
            timeout=900,
        )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    patches = list((add_op / ".ascendopt" / "episodes").glob("*/add_custom.patch"))
    assert len(patches) == 1, done.stdout.decode()[-3000:]
    patch = patches[0]
    written = patch.read_bytes()
    assert MARKUP.encode() in written and b"BUFFER_NUM = 2" in written
    assert written in done.stdout, done.stdout.decode()[-3000:]
    for text in (done.stdout, done.stderr):
        assert KEY.encode() not in text
    for root in (add_op.parent, cache):
        assert not [p for p in root.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
