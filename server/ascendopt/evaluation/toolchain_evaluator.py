"""An Evaluator made of a toolchain on a pool of slots: build, run every case, compare locally.

Inputs are generated and the reference run here, before a slot is taken, so a retry after
a dropped host reuses them and an NPU is never held while NumPy works. Whatever the
toolchain or the machine, outputs come back as bytes and are compared here.

An evaluator serves one episode: the inputs, the reference's outputs and the expected values
rounded for comparison are computed once per (reference source, spec, case, seed) and reused by
every candidate and the re-check (`_prepared`). NumPy's work runs off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ascendopt.evaluation.compare import Expected, compare_expected, expect, untouched_passes
from ascendopt.evaluation.oracle import (
    OracleCase,
    OracleError,
    kernel_values,
    oracle_attrs,
    oracle_paths,
    run_oracle,
)
from ascendopt.evaluation.pool import PoolExhausted, SlotPool
from ascendopt.evaluation.records import CaseResult, Evaluation, OutputCheck
from ascendopt.evaluation.reference import ReferenceError, load_reference, run_reference
from ascendopt.evaluation.runner import RunnerError, TransportError
from ascendopt.evaluation.tensors import case_seed, decode_raw, encode_inputs, make_inputs, tensor_bytes
from ascendopt.evaluation.toolchain import CaseJob, Combo, Slot, Toolchain, combo_of
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.issues import CompileError
from ascendopt.operators.layouts.kernel_launch import with_candidate_block_dim
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.soc import Soc
from ascendopt.operators.spec import OperatorSpec, ResolvedCase, output_instances

# Cases whose inputs and expected values an evaluator keeps (the least recently used go first).
PREPARED_CASES = 256


@dataclass(frozen=True)
class Prepared:
    """One case's inputs and the reference's outputs on them (None, and why, if the reference failed)."""

    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray] | None
    error: str = ""
    checks: dict[str, Expected] = field(default_factory=dict)  # per output, ready for compare_expected
    attrs: dict[str, int | float | bool] = field(default_factory=dict)  # the oracle's, over the case's
    # In-place outputs whose expected values are their input's own in this case (why, per output): a
    # kernel leaving the buffer alone passes it here, so other cases must tell (`_judged`).
    untouched: dict[str, str] = field(default_factory=dict)
    raw_inputs: dict[str, bytes] | None = None  # `inputs` as their files' bytes, encoded once per case


class ToolchainEvaluator:
    def __init__(self, name: str, toolchain: Toolchain, pool: SlotPool, reference_parallel: int = 2) -> None:
        self.name = name
        self.toolchain = toolchain
        self.pool = pool
        self._reference_parallel = max(1, reference_parallel)
        self._prepared: OrderedDict[tuple[str, int], Prepared] = OrderedDict()

    async def close(self) -> None:
        """Close every runner (their connections); used again, they reconnect."""
        for runner in {id(h.runner): h.runner for h in self.pool.hosts}.values():
            await runner.close()

    async def __aenter__(self) -> ToolchainEvaluator:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int = 0,
        profile: bool = False,
    ) -> Evaluation:
        start = time.perf_counter()
        evaluation = Evaluation(
            candidate_id=candidate.id,
            operator=project.name,
            backend=self.name,
            hardware=self.name,
            seed=seed,
            status="ok",
        )
        if project.spec is None:
            evaluation.status = "error"
            evaluation.message = f"{project.name} has no ascendopt.toml; run `ascendopt init-spec` first"
            return evaluation
        evaluation.unchecked_outputs = project.spec.unchecked_outputs
        try:
            prepared = _judged(await self._prepare(project, candidate, cases, seed), cases)
        except ReferenceError as exc:
            evaluation.status = "error"
            evaluation.message = str(exc)
            return evaluation

        async def attempt(slot: Slot) -> Evaluation:
            return await self._attempt(
                slot, evaluation.model_copy(deep=True), project, candidate, cases, prepared, profile
            )

        try:
            result = await self.pool.run(attempt)
        except (PoolExhausted, RunnerError) as exc:
            # Infrastructure, not the candidate: reported as an error (and never cached).
            evaluation.status = "error"
            evaluation.message = f"{self.name}: {exc}"
            result = evaluation
        result.wall_seconds = time.perf_counter() - start
        return result

    async def _prepare(
        self, project: OperatorProject, candidate: Candidate, cases: list[ResolvedCase], seed: int
    ) -> dict[int, Prepared]:
        """Every case's Prepared: kept from an earlier evaluation with the same reference source,
        spec, case and seed, else computed (the reference loaded only then)."""
        assert project.spec is not None
        spec = project.spec
        if spec.oracle is not None:
            return await self._prepare_oracle(project, cases, seed)
        rel = spec.reference.split(":", 1)[0]
        source = candidate.files.get(rel)
        text = source
        if text is None:
            try:
                text = (project.spec_root / rel).read_text(encoding="utf-8")
            except OSError:
                text = None  # load_reference says why
        scope = _digest(
            str(project.spec_root), spec.model_dump_json(), text if text is not None else "", seed
        )
        keys = {c.index: (f"{scope}/{_digest(c.model_dump_json())}", seed) for c in cases}
        missing = [c for c in cases if keys[c.index] not in self._prepared or text is None]
        if missing:
            reference = load_reference(project.spec_root, spec, source)
            sem = asyncio.Semaphore(self._reference_parallel)

            async def one(case: ResolvedCase) -> Prepared:
                async with sem:
                    return await asyncio.to_thread(_prepare_case, reference, spec, case, seed)

            for case, done in zip(missing, await asyncio.gather(*(one(c) for c in missing)), strict=True):
                self._prepared[keys[case.index]] = done
        out = {}
        for c in cases:
            self._prepared.move_to_end(keys[c.index])
            out[c.index] = self._prepared[keys[c.index]]
        while len(self._prepared) > max(PREPARED_CASES, len(cases)):
            self._prepared.popitem(last=False)
        return out

    async def _prepare_oracle(
        self, project: OperatorProject, cases: list[ResolvedCase], seed: int
    ) -> dict[int, Prepared]:
        """Every case's Prepared from a benchmark task's oracle (its get_inputs and Model, sandboxed),
        kept like the reference's: per (task files, spec, case, seed)."""
        spec = project.spec
        assert spec is not None and spec.oracle is not None
        texts = []
        for path in oracle_paths(project.spec_root, spec.oracle):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except OSError:
                texts.append("")  # run_oracle says why
        scope = _digest(str(project.spec_root), spec.model_dump_json(), *texts, seed)
        keys = {c.index: (f"{scope}/{_digest(c.model_dump_json())}", seed) for c in cases}
        missing = [c for c in cases if keys[c.index] not in self._prepared]
        if missing:
            try:
                got = await run_oracle(
                    project.spec_root,
                    spec.oracle,
                    [(str(c.index), c.params, case_seed(seed, c, "oracle")) for c in missing],
                )
            except OracleError as exc:
                raise ReferenceError(str(exc)) from exc
            for case in missing:
                self._prepared[keys[case.index]] = await asyncio.to_thread(
                    _prepare_oracle_case, spec, case, got[str(case.index)]
                )
        out = {}
        for c in cases:
            self._prepared.move_to_end(keys[c.index])
            out[c.index] = self._prepared[keys[c.index]]
        return out

    async def _attempt(
        self,
        slot: Slot,
        evaluation: Evaluation,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        prepared: dict[int, Prepared],
        profile: bool,
    ) -> Evaluation:
        soc = self.toolchain.soc_for(slot, project)  # once: the build, the cases and the timing share it
        evaluation.hardware = self.toolchain.hardware(slot, soc)
        evaluation.soc = soc.name
        project = with_candidate_block_dim(project, candidate.files)
        runner = slot.runner
        if candidate.llm_written and (refusal := await runner.sandbox_refusal(self.toolchain.sandboxed)):
            evaluation.status = "error"
            evaluation.message = f"refused to run LLM-written code on {runner.name}: {refusal}"
            return evaluation
        folder = await runner.workdir(project.name, candidate.id)
        try:
            # Inside a repository the sources go up in its shape (repo headers at their repo paths).
            tree = f"{folder}/src"
            src_dir = project.source_dir(tree)
            await runner.put(
                tree, {rel: t.encode("utf-8") for rel, t in project.tree_files(candidate.files).items()}
            )
            combos = sorted({combo_of(c) for c in cases if prepared[c.index].expected is not None})
            try:
                artifacts = await self.toolchain.build(slot, project, candidate, src_dir, combos, soc)
            except CompileError as exc:
                evaluation.status = "compile_error"
                evaluation.compile_errors = exc.issues
                evaluation.message = f"{len(exc.issues)} compile error(s)"
                return evaluation
            sem = asyncio.Semaphore(self.toolchain.case_parallel(slot))

            async def one(case: ResolvedCase) -> CaseResult:
                async with sem:
                    return await self._run_one(
                        slot,
                        artifacts,
                        project,
                        case,
                        prepared[case.index],
                        f"{folder}/case{case.index}",
                        src_dir,
                        profile,
                        soc,
                    )

            evaluation.cases = list(await asyncio.gather(*(one(c) for c in cases)))
            return evaluation
        finally:
            # Best effort: a host that dropped keeps its folder until the next cleanup.
            with contextlib.suppress(TransportError, OSError):
                await asyncio.shield(runner.remove(folder))

    async def _run_one(
        self,
        slot: Slot,
        artifacts: dict[Combo, object],
        project: OperatorProject,
        case: ResolvedCase,
        prepared: Prepared,
        work: str,
        src_dir: str,
        profile: bool,
        soc: Soc,
    ) -> CaseResult:
        assert project.spec is not None
        spec = project.spec
        result = CaseResult(index=case.index, name=case.name, dtypes=dict(case.dtypes), status="error")
        inputs, expected = prepared.inputs, prepared.expected
        if expected is None:
            result.message = prepared.error
            return result
        if prepared.attrs:  # the kernel runs with the attrs the oracle's Model got
            case = case.model_copy(update={"attrs": {**case.attrs, **prepared.attrs}})
        shapes = {name: list(np.shape(v)) for name, v in expected.items()}
        for t in spec.outputs:  # in place, with no expected value in this case: one buffer with its input
            if t.alias in case.input_shapes and t.param_type != "dynamic":
                shapes.setdefault(t.name, case.input_shapes[t.alias])
        for name, shape in case.output_shapes.items():  # the spec sizes what the case does not compare
            shapes.setdefault(name, list(shape))
        result.gm_bytes = tensor_bytes(case, {**case.input_shapes, **shapes})
        job = CaseJob(project, case, inputs, shapes, work, src_dir, profile, soc, prepared.raw_inputs)
        run = await self.toolchain.run_case(slot, artifacts[combo_of(case)], job)
        result.findings = run.findings
        result.block_dim = run.block_dim
        result.tiling_key = run.tiling_key
        result.ub_bytes_per_block = run.ub_bytes_per_block
        result.run_seconds = run.seconds
        if run.error:
            result.message = run.error
            return result
        try:
            result.outputs = await asyncio.to_thread(
                _check_outputs, spec, case, run.outputs, shapes, prepared
            )
        except (KeyError, ValueError) as exc:
            result.message = f"output missing or the wrong size: {exc}"
            return result
        errors = [f for f in run.findings if f.severity == "error"]
        wrong = [o.name for o in result.outputs if not o.passed]
        if profile:
            result.profile = run.profile
        if not wrong and not errors:
            result.status = "passed"
        else:
            result.status = "failed"
            parts = []
            if wrong:
                parts.append(f"wrong output(s): {', '.join(wrong)}")
            if errors:
                parts.append(f"{len(errors)} sanitizer error(s)")
            result.message = "; ".join(parts)
        return result


def _digest(*parts: object) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def _prepare_case(
    reference: Callable[..., object], spec: OperatorSpec, case: ResolvedCase, seed: int
) -> Prepared:
    inputs = make_inputs(spec, case, seed)
    try:
        expected = run_reference(reference, spec, case, inputs)
    except ReferenceError as exc:
        return Prepared(_frozen(inputs), None, str(exc))
    return _prepared(spec, case, inputs, expected)


def _prepared(
    spec: OperatorSpec,
    case: ResolvedCase,
    inputs: dict[str, np.ndarray],
    expected: dict[str, np.ndarray],
    attrs: dict[str, int | float | bool] | None = None,
) -> Prepared:
    """The case ready for comparison; an error when an in-place output's expected values are its
    input's own (an untouched buffer would pass: not a judge of the kernel)."""
    checks = _checks(spec, case, expected)
    untouched = {}
    for t, names in output_instances([t for t in spec.checked_in(case) if t.alias], expected):
        # a list output's tensor i is its list input's tensor i
        sources = case.instances(str(t.alias)) if t.param_type == "dynamic" else [str(t.alias)]
        why = untouched_passes(
            [(n, src, case.dtypes[t.name]) for n, src in zip(names, sources, strict=False)], inputs, checks
        )
        if why:
            untouched[t.name] = why
    raw = encode_inputs(case, inputs)
    return Prepared(_frozen(inputs), expected, "", checks, attrs or {}, untouched, raw)


def _judged(prepared: dict[int, Prepared], cases: list[ResolvedCase]) -> dict[int, Prepared]:
    """The cases, each an error saying so where an in-place output is its input's own values in every
    case with expected values (then no case tells a kernel that leaves the buffer alone from a right
    one). A case where it is, among others that tell, runs: it checks the buffer is left as it must."""
    ran = [prepared[c.index] for c in cases if prepared[c.index].expected is not None]
    never = set.intersection(*(set(p.untouched) for p in ran)) if ran else set()
    if not never:
        return prepared
    out = dict(prepared)
    for c in cases:
        p = prepared[c.index]
        if p.expected is not None:
            why = "; ".join(p.untouched[n] for n in sorted(never))
            out[c.index] = Prepared(p.inputs, None, f"case {c.name}: {why}")
    return out


def _prepare_oracle_case(spec: OperatorSpec, case: ResolvedCase, got: OracleCase | str) -> Prepared:
    if isinstance(got, str):
        return Prepared({}, None, f"case {case.name}: {got}")
    try:
        inputs, expected = kernel_values(spec, case, got)
    except OracleError as exc:
        return Prepared({}, None, f"case {case.name}: {exc}")
    return _prepared(spec, case, inputs, expected, oracle_attrs(spec, case, got))


def _checks(spec: OperatorSpec, case: ResolvedCase, expected: dict[str, np.ndarray]) -> dict[str, Expected]:
    """Per checked output instance (a list output's tensors one by one), ready for compare_expected; a
    benchmark task's Model values unrounded, as the benchmark's check takes them."""
    rounded = spec.oracle is None or spec.oracle.kind != "kernelbench"
    return {
        name: expect(expected[name], case.dtype_of(name), spec.tolerance(case.dtype_of(name)), rounded)
        for _, names in output_instances(spec.checked_in(case), expected)
        for name in names
    }


def _frozen(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Read only from now on: every evaluation of the episode shares them (frozen after the reference
    ran, so a reference that writes into its inputs does what it did before: the run gets them so)."""
    for a in arrays.values():
        a.setflags(write=False)
    return arrays


def _check_outputs(
    spec: OperatorSpec,
    case: ResolvedCase,
    outputs: dict[str, bytes],
    shapes: dict[str, list[int]],
    prepared: Prepared,
) -> list[OutputCheck]:
    """Decode every checked output instance (KeyError or ValueError: missing or the wrong size) and
    compare it."""
    names = [n for _, group in output_instances(spec.checked_in(case), shapes) for n in group]
    actual = {n: decode_raw(outputs[n], case.dtype_of(n), shapes[n], n) for n in names}
    return [compare_expected(n, case.dtype_of(n), actual[n], prepared.checks[n]) for n in names]
