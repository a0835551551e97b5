"""The JSON schema the extension ships for ascendopt.toml is the one the spec's pydantic model
generates, and every template's spec passes it (and a broken one does not)."""

from __future__ import annotations

import json

import pytest
import tomllib

from ascendopt.operators.spec_schema import render, spec_json_schema
from ascendopt.operators.templates import list_templates
from tests.conftest import REPO, TEMPLATES

COMMITTED = REPO / "extension" / "schemas" / "ascendopt.schema.json"


def test_committed_schema_is_the_generated_one():
    assert COMMITTED.read_text(encoding="utf-8") == render(), (
        "regenerate: python -m ascendopt.operators.spec_schema > extension/schemas/ascendopt.schema.json"
    )


def test_templates_validate_against_the_schema_and_a_typo_does_not():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(spec_json_schema())
    for spec in sorted(TEMPLATES.glob("*/ascendopt.toml")):
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
        assert not list(validator.iter_errors(data)), spec
        broken = {**data, "casses": data["cases"]}
        assert any("casses" in e.message for e in validator.iter_errors(broken))


def test_every_template_has_a_one_line_summary():
    found = list_templates()
    assert {t.name for t in found} == {p.parent.name for p in TEMPLATES.glob("*/ascendopt.toml")}
    for t in found:
        assert t.summary and "\n" not in t.summary and len(t.summary) < 140, t
    assert next(t for t in found if t.name == "add_custom").summary.startswith("z = x + y")
    json.dumps([t.model_dump() for t in found])


def test_the_extension_contributes_the_schema_and_hides_the_workspace_state():
    package = json.loads((REPO / "extension" / "package.json").read_text())
    contributes = package["contributes"]
    (toml,) = contributes["tomlValidation"]
    assert toml["fileMatch"] == "ascendopt.toml"
    assert (REPO / "extension" / toml["url"]).resolve() == COMMITTED
    assert contributes["configurationDefaults"]["files.exclude"] == {"**/.ascendopt": True}
    assert (REPO / "extension" / package["icon"]).stat().st_size > 0
    for step in contributes["walkthroughs"][0]["steps"]:
        assert (REPO / "extension" / step["media"]["markdown"]).exists(), step["id"]
