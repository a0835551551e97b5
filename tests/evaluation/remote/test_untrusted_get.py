"""The SSH runner's `get` reads what a candidate left as the local runner does: no symlink followed,
regular files only (a FIFO refused without hanging), and at most a cap (a loopback sshd: the
remote folder is on this machine, so the test plants the files directly)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from ascendopt.evaluation.remote.settings import RemoteSettings
from ascendopt.evaluation.remote.ssh_runner import SshRunner
from ascendopt.evaluation.runner import READ_CAPS, RefusedFile

SECRET = "HOST-SECRET-MARKER-9c2b"


async def test_get_refuses_links_fifos_and_floods(ssh_settings: RemoteSettings, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    runner = SshRunner(ssh_settings.hosts[0], ssh_settings)
    try:
        folder = await runner.workdir("untrusted", "get")
        await runner.put(folder, {"out_x.bin": b"fine"})
        for name in ("findings.jsonl", "result.json", "out_z.bin", "trace.jsonl"):
            os.symlink(secret, f"{folder}/{name}")
            with pytest.raises(RefusedFile, match=re.escape(f"{name} is a symlink: refused")) as refused:
                await runner.get(folder, ["out_x.bin", name])
            assert SECRET not in str(refused.value)
            os.unlink(f"{folder}/{name}")
        os.symlink("/proc/self/environ", f"{folder}/result.json")
        with pytest.raises(RefusedFile, match=r"result\.json is a symlink"):
            await runner.get(folder, ["result.json"])
        os.symlink(tmp_path, f"{folder}/output")
        with pytest.raises(RefusedFile, match="output is a symlink"):
            await runner.get(folder, ["output/secret.txt"])
        os.mkfifo(f"{folder}/findings.jsonl")
        with pytest.raises(RefusedFile, match=r"findings\.jsonl is not a regular file"):
            await asyncio.wait_for(runner.get(folder, ["findings.jsonl"]), timeout=10)
        os.unlink(f"{folder}/findings.jsonl")
        cap = READ_CAPS["findings.jsonl"]
        Path(folder, "findings.jsonl").write_bytes(b"x" * (cap + 1))
        with pytest.raises(RefusedFile, match=re.escape(f"findings.jsonl is over {cap} bytes: refused")):
            await runner.get(folder, ["findings.jsonl"])
        assert await runner.get(folder, ["out_x.bin", "none.bin"]) == {"out_x.bin": b"fine", "none.bin": None}
        assert sorted(await runner.listdir(folder)) == ["findings.jsonl", "out_x.bin"]
        await runner.remove(folder)
    finally:
        await runner.close()
