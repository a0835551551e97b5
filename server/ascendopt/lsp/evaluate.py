"""Verify and Profile from the editor: the verify service in the background, results as diagnostics,
hovers and lens text. Also re-verifies on save when the last run had problems, so fixed findings go
away."""

from __future__ import annotations

from typing import Any, Literal

from lsprotocol import types

from ascendopt.evaluation.backends import BackendError
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.remote.settings import SettingsError
from ascendopt.evaluation.verify import VerifyError, verify
from ascendopt.lsp import diagnostics, output, protocol, render
from ascendopt.lsp.index import op_key
from ascendopt.lsp.jobs import AlreadyRunning, Job, WorkDone, unless_cancelled
from ascendopt.lsp.runs import LastRun, Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.settings import Configuration
from ascendopt.lsp.targets import TargetError, fresh, parse_target, resolve
from ascendopt.operators.model import OperatorProject

Action = Literal["verify", "profile"]


def register(ls: AscendServer) -> None:
    @ls.command(protocol.VERIFY)
    async def verify_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await _command(ls, "verify", args)

    @ls.command(protocol.PROFILE)
    async def profile_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await _command(ls, "profile", args)


async def _command(ls: AscendServer, action: Action, args: tuple[Any, ...]) -> dict[str, Any]:
    try:
        target = parse_target(args)
        op = await resolve(ls, target)
    except TargetError as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=str(exc)))
        return {"status": "error", "message": str(exc)}
    if op.files.spec is None and op.spec is None:
        from ascendopt.lsp import spec_init  # the init-spec feature; imported here to keep modules acyclic

        ls.background(spec_init.offer(ls, op))
        message = f"{op.name} has no ascendopt.toml"
        return {"status": "error", "message": message}
    await ls.current_settings()
    try:
        job = start(ls, op, action, target.case)
    except AlreadyRunning as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc)))
        return {"status": "already-running", "message": str(exc)}
    assert job.task is not None
    await job.task  # the request stays open while it runs; other requests are served meanwhile
    run = ls.state(Runs).last_runs.get(op_key(op))
    if run is None or job.cancel.is_set():
        return {"status": "cancelled" if job.cancel.is_set() else "error", "message": job.status}
    return summary(run.evaluation).wire()


def start(ls: AscendServer, op: OperatorProject, action: Action, case: str | None) -> Job:
    title = f"{'Verify' if action == 'verify' else 'Profile'} {op.name}"

    async def work(job: Job) -> None:
        await _run(ls, op, action, case, job)

    return ls.jobs.start(op_key(op), "evaluation", title, work)


async def _run(ls: AscendServer, op: OperatorProject, action: Action, case: str | None, job: Job) -> None:
    progress = WorkDone(ls, job)
    try:
        async with ls.evaluators.use(ls.state(Configuration).settings, ls.workspace_of(op.root)) as evaluator:
            await progress.begin(f"building and running on {evaluator.name}")
            with output.to_channel(ls):
                work = verify(evaluator, op, case, seed=0, profile=action == "profile")
                task = await unless_cancelled(job, work)
    except (BackendError, SettingsError) as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=str(exc)))
        return
    if task is None:
        progress.end("cancelled")
        return
    try:
        evaluation = task.result()
    except VerifyError as exc:
        progress.end("cannot run")
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=str(exc)))
        return
    except Exception as exc:
        progress.end("failed")
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"{job.title} failed: {exc}")
        )
        raise
    record(ls, op, action, case, evaluation)
    progress.end(render.verdict(evaluation))


def record(
    ls: AscendServer, op: OperatorProject, action: Action, case: str | None, evaluation: Evaluation
) -> None:
    key = op_key(op)
    ls.state(Runs).last_runs[key] = LastRun(action=action, case=case, evaluation=evaluation)
    if action == "profile" and any(c.profile for c in evaluation.cases):
        ls.state(Runs).last_profiles[key] = evaluation
    diagnostics.publish(ls)
    refresh_lenses(ls)
    params = protocol.EvaluatedParams(
        operator=op.name, operatorRoot=str(op.root), action=action, **summary(evaluation).model_dump()
    )
    ls.protocol.notify(protocol.EVALUATED, params.wire())


def summary(evaluation: Evaluation) -> protocol.EvaluationSummary:
    return protocol.EvaluationSummary(
        status=evaluation.status,
        correct=evaluation.correct,
        verdict=render.verdict(evaluation),
        compileErrors=len(evaluation.compile_errors),
        findings=len(evaluation.findings()),
        cases=[
            protocol.EvaluatedCase(
                name=c.name,
                status=c.status,
                durationUs=c.profile.duration_us if c.profile else None,
                label=render.case_line(c.profile) if c.profile else None,
            )
            for c in evaluation.cases
        ],
    )


def has_problems(run: LastRun) -> bool:
    ev = run.evaluation
    return ev.status != "ok" or bool(ev.compile_errors) or bool(ev.findings()) or not ev.correct


async def reverify(ls: AscendServer, op: OperatorProject) -> None:
    """Re-run the last Verify/Profile of `op` if it left problems, so fixed ones disappear."""
    run = ls.state(Runs).last_runs.get(op_key(op))
    if run is None or not has_problems(run) or ls.jobs.running(op_key(op), "evaluation"):
        return
    try:
        current = await fresh(ls, op.root, op.name)
    except TargetError:
        return
    job = start(ls, current, run.action, run.case)
    assert job.task is not None
    await job.task


def refresh_lenses(ls: AscendServer) -> None:
    caps = ls.client_capabilities.workspace
    if caps and caps.code_lens and caps.code_lens.refresh_support:
        # Fire and forget: a client that is slow to answer must not hold up the caller.
        ls.background(ls.workspace_code_lens_refresh_async(None))
