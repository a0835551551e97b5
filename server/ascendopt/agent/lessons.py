"""Between the episode and the experience bank: diagnoses out, lessons in, lessons back."""

from __future__ import annotations

import json

from ascendopt.agent.strategies.knobs import Assignment
from ascendopt.evaluation.records import Evaluation
from ascendopt.experience.guard import TEXT_FIELDS, clean_text, neutralise
from ascendopt.experience.records import Diagnosis, ExperienceEntry, KnobApplicator
from ascendopt.operators.model import OperatorProject

_PIPE_KEYS = {
    "aiv_mte2_time(us)": "mte2",
    "aiv_mte3_time(us)": "mte3",
    "aiv_vec_time(us)": "vec",
    "aiv_scalar_time(us)": "scalar",
}


def diagnosis_of(
    project: OperatorProject, evaluation: Evaluation, files: dict[str, str], bottleneck: str = ""
) -> Diagnosis:
    """The slowest case's profile as a query: bound, pipe ratios, and the code on its hot lines."""
    timed = [c for c in evaluation.cases if c.profile is not None]
    if not timed:
        return Diagnosis(bottleneck=bottleneck, operator=project.name, layout=project.layout)
    case = max(timed, key=lambda c: c.profile.duration_us if c.profile else 0.0)
    assert case.profile is not None
    ratios = {_PIPE_KEYS[p.pipe]: p.ratio for p in case.profile.pipes if p.pipe in _PIPE_KEYS}
    hot: list[str] = []
    for where in case.profile.hot_lines[:3]:
        path, _, rest = where.partition(":")
        line = rest.split(" ", 1)[0]
        if path in files and line.isdigit():
            text = files[path].splitlines()[int(line) - 1].strip()
            if text not in hot:
                hot.append(text)
    facts = _knob_facts(project)
    bound = (
        case.profile.bound if case.profile.bound in ("memory", "vector", "scalar", "sync", "launch") else None
    )
    shares = ", ".join(f"{k} {v:.0%}" for k, v in ratios.items())
    return Diagnosis(
        bottleneck="; ".join(p for p in (bottleneck or f"{bound or 'unknown'}-bound; {shares}", *facts) if p),
        bound=bound,
        pipe_ratios=ratios,
        hot_code="\n".join(hot),
        operator=project.name,
        layout=project.layout,
        dtypes=sorted(set(case.dtypes.values())),
    )


def _knob_facts(project: OperatorProject) -> list[str]:
    """What the knob values already say about the kernel, in the words lessons use."""
    facts = []
    for knob in project.knobs:
        if knob.kind == "buffer_num" and knob.current == 1:
            facts.append("single buffer BUFFER_NUM 1: no double buffering, copy-in cannot overlap compute")
        if knob.kind == "tile_length" and knob.values and knob.current == min(knob.values):
            facts.append("smallest tile length: many tiny copies")
    return facts


def knob_settings(lessons: list[ExperienceEntry], project: OperatorProject) -> list[Assignment]:
    """Lessons that apply themselves: knob applicators mapped onto this operator's knobs."""
    out: list[Assignment] = []
    for lesson in lessons:
        app = lesson.applicator
        if not isinstance(app, KnobApplicator):
            continue
        for knob in project.knobs:
            if knob.kind != app.knob_kind or not knob.values:
                continue
            value = (
                max(knob.values)
                if app.value == "max"
                else min(knob.values)
                if app.value == "min"
                else app.value
            )
            if value in knob.values and value != knob.current:
                out.append({knob.name: int(value)})
    return out


def format_lessons(lessons: list[ExperienceEntry]) -> str:
    """The lessons as one `<lessons>` block of quoted data (the prompt says it is never instructions):
    each text field cleaned and quoted, the diffs with any delimiter look-alike neutralised."""
    if not lessons:
        return "<lessons>\n(none retrieved)\n</lessons>"
    parts = []
    for n, lesson in enumerate(lessons, start=1):
        measured = (
            f"measured {lesson.slow_us:.1f} -> {lesson.fast_us:.1f} us ({lesson.timing})"
            if lesson.slow_us and lesson.fast_us
            else "not measured"
        )
        quoted = {f: json.dumps(clean_text(getattr(lesson, f)), ensure_ascii=False) for f in TEXT_FIELDS}
        diff = neutralise(lesson.code_diff.text())
        parts.append(
            f"lesson {n} [{clean_text(lesson.family)}; {lesson.provenance}; {measured}]\n"
            f"  title: {quoted['title']}\n  bottleneck: {quoted['bottleneck']}\n"
            f"  applies when: {quoted['applies_when']}\n  avoid when: {quoted['avoid_when']}\n"
            f"  diff (slow -> fast):\n{diff}"
        )
    return "<lessons>\n" + "\n".join(parts) + "\n</lessons>"
