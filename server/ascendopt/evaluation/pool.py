"""Slots (host × device) for evaluations: one evaluation per slot, retried when a host drops.

A job that fails with TransportError is given back and tried again (after a backoff, on
whichever host has a free slot); a host that fails `host_failures` times in a row is marked
down and gets no more work. A job is counted completed once, by the attempt that returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, Field

from ascendopt.evaluation.runner import Runner, TransportError
from ascendopt.evaluation.toolchain import Slot

log = logging.getLogger(__name__)
T = TypeVar("T")


class RetryPolicy(BaseModel):
    attempts: int = Field(default=4, ge=1, description="tries of one evaluation, over all hosts")
    host_failures: int = Field(default=3, ge=1, description="failures in a row before a host is down")
    backoff_s: float = Field(default=0.5, ge=0, description="first wait after a failure; doubles")
    backoff_max_s: float = Field(default=10.0, ge=0)


class PoolExhausted(RuntimeError):
    """No host is up, or an evaluation failed on every attempt."""


class PoolStats(BaseModel):
    started: int = 0
    completed: int = 0
    retried: int = 0
    hosts_down: list[str] = Field(default_factory=list)


@dataclass
class PoolHost:
    name: str
    runner: Runner
    devices: list[int | None]
    max_parallel: int
    failures: int = 0
    down_reason: str | None = None
    cooldown_until: float = 0.0
    free: list[int | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.free = list(self.devices)

    @property
    def capacity(self) -> int:
        return 0 if self.down_reason else min(len(self.devices), self.max_parallel)

    @property
    def busy(self) -> int:
        return len(self.devices) - len(self.free)


class SlotPool:
    def __init__(self, hosts: list[PoolHost], policy: RetryPolicy | None = None) -> None:
        if not hosts:
            raise ValueError("a slot pool needs at least one host")
        self.hosts = hosts
        self.policy = policy or RetryPolicy()
        self.stats = PoolStats()
        self._changed = asyncio.Condition()

    @property
    def slots(self) -> int:
        """Evaluations that can run at once (hosts marked down no longer count)."""
        return sum(h.capacity for h in self.hosts)

    async def run(self, job: Callable[[Slot], Awaitable[T]]) -> T:
        self.stats.started += 1
        last: BaseException | None = None
        for attempt in range(self.policy.attempts):
            host, device = await self._acquire()
            try:
                result = await job(Slot(runner=host.runner, host=host.name, device=device))
            except TransportError as exc:
                last = exc
                await self._release(host, device, failed=exc)
                if attempt + 1 < self.policy.attempts:
                    self.stats.retried += 1
                    log.warning("%s dropped (%s); evaluation requeued", host.name, exc)
                continue
            except BaseException:
                await self._release(host, device, failed=None)
                raise
            await self._release(host, device, failed=None, ok=True)
            self.stats.completed += 1
            return result
        raise PoolExhausted(f"gave up after {self.policy.attempts} attempts: {last}")

    async def _acquire(self) -> tuple[PoolHost, int | None]:
        async with self._changed:
            while True:
                up = [h for h in self.hosts if h.down_reason is None]
                if not up:
                    reasons = "; ".join(f"{h.name}: {h.down_reason}" for h in self.hosts)
                    raise PoolExhausted(f"every host is down ({reasons})")
                now = time.monotonic()
                ready = [h for h in up if h.cooldown_until <= now and h.free and h.busy < h.max_parallel]
                if ready:
                    host = min(ready, key=lambda h: (h.busy / max(1, h.capacity), h.failures))
                    return host, host.free.pop(0)
                waits = [h.cooldown_until - now for h in up if h.cooldown_until > now]
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), timeout=min(waits) if waits else None)

    async def _release(
        self, host: PoolHost, device: int | None, *, failed: BaseException | None, ok: bool = False
    ) -> None:
        async with self._changed:
            host.free.append(device)
            host.free.sort(key=lambda d: -1 if d is None else d)
            now = time.monotonic()
            if ok:
                host.failures = 0
            elif failed is not None and host.down_reason is None and host.cooldown_until <= now:
                # Jobs that fail together on one drop count as one failure of the host.
                host.failures += 1
                if host.failures >= self.policy.host_failures:
                    host.down_reason = f"unreachable after {host.failures} tries: {failed}"
                    self.stats.hosts_down.append(host.name)
                    log.error("%s marked down: %s", host.name, host.down_reason)
                else:
                    wait = self.policy.backoff_s * 2 ** (host.failures - 1)
                    host.cooldown_until = now + min(wait, self.policy.backoff_max_s)
            self._changed.notify_all()


def local_pool(runner: Runner, slots: int) -> SlotPool:
    """This machine as a pool of `slots` interchangeable slots (no devices)."""
    return SlotPool([PoolHost(name="local", runner=runner, devices=[None] * slots, max_parallel=slots)])
