"""Where campaign tasks run: a bounded local process pool, or a Ray cluster.

Both run the same `run_task` (on Ray, in a scratch folder per task; a cancel interrupts it).
Ray places a task by resources: one `NPU` for an episode on the node's own CANN (`local:cann`;
Ray detects Ascend NPUs itself), one CPU otherwise (the twin, or SSH backends whose hosts keep
their own device pool); a task whose node dies is retried elsewhere and continues its journal,
so nothing is evaluated twice. The workspace must be reachable at the same path from every
node (a shared folder), since episodes journal there.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Protocol

from ascendopt.campaign.records import TaskResult
from ascendopt.campaign.tasks import EpisodeTask, run_task_in_scratch
from ascendopt.processes import OutputTail, read_to_end, wait_exit

RAY_TASK_RETRIES = 3


class TaskPool(Protocol):
    slots: int

    async def run(self, task: EpisodeTask) -> TaskResult: ...

    def close(self) -> None: ...


class LocalPool:
    """Tasks as child processes (`python -m ascendopt.campaign.worker`), at most `jobs` at once
    (the service bounds it); a cancelled task's process is terminated."""

    def __init__(self, jobs: int) -> None:
        self.slots = max(1, jobs)

    async def run(self, task: EpisodeTask) -> TaskResult:
        # The task and its result go through files, and the child is awaited on its pidfd: asyncio's
        # subprocess transport, cancelled while it connects the pipes, never ends (sandbox.run_limited).
        with tempfile.TemporaryDirectory(prefix="ascendopt-task-") as folder:
            given, got = Path(folder) / "task.json", Path(folder) / "result.json"
            given.write_text(task.model_dump_json(), encoding="utf-8")
            argv = [sys.executable, "-m", "ascendopt.campaign.worker", str(given), str(got)]
            devnull, pipe = subprocess.DEVNULL, subprocess.PIPE
            proc = subprocess.Popen(argv, stdin=devnull, stdout=devnull, stderr=pipe)
            assert proc.stderr is not None
            err = OutputTail(None)
            try:
                await read_to_end(proc.stderr.fileno(), err)
                await wait_exit(proc)
            except asyncio.CancelledError:
                proc.terminate()  # the worker cancels its episode, removes its scratch folder, exits
                await wait_exit(proc)
                raise
            finally:
                proc.stderr.close()
            if proc.returncode != 0 or not got.is_file():
                tail = err.close().strip().splitlines()[-1:] or ["no output"]
                raise RuntimeError(f"episode worker exited {proc.returncode}: {tail[0]}")
            return TaskResult.model_validate_json(got.read_text(encoding="utf-8"))

    def close(self) -> None:
        pass  # each task's process ends with it


class RayPool:
    def __init__(self, address: str, jobs: int | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("--ray needs Ray: pip install 'ascendopt[ray]'") from exc
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=None if address == "local" else address, log_to_driver=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = max(1, jobs or cpus)
        self._remote = ray.remote(max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(run_task_in_scratch)

    def _resources(self, task: EpisodeTask) -> dict[str, Any]:
        if task.request.backend == "local:cann":  # CANN on the Ray node itself: one of its NPUs
            return {"num_cpus": 1, "resources": {"NPU": 1}}
        return {"num_cpus": 1}

    async def run(self, task: EpisodeTask) -> TaskResult:
        ref = self._remote.options(**self._resources(task)).remote(task)
        try:
            result: TaskResult = await ref
        except asyncio.CancelledError:
            # Dropping the await leaves the task running on the cluster; this interrupts it
            # (KeyboardInterrupt inside the task, so its episode's `finally`s run).
            self._ray.cancel(ref)
            raise
        return result

    def close(self) -> None:
        self._ray.shutdown()
