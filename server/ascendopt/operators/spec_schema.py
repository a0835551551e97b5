"""The JSON schema of ascendopt.toml, generated from the spec's pydantic model (OperatorSpec), so
TOML editors validate and complete the file with the same rules `load_spec` applies. The VS Code
extension ships it as extension/schemas/ascendopt.schema.json (a test keeps the two equal):

    python -m ascendopt.operators.spec_schema > extension/schemas/ascendopt.schema.json
"""

from __future__ import annotations

import json
from typing import Any

from ascendopt.operators.spec import OperatorSpec

SCHEMA_ID = "https://github.com/ascendopt/ascendopt/extension/schemas/ascendopt.schema.json"


def spec_json_schema() -> dict[str, Any]:
    schema = OperatorSpec.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "AscendOptimizer operator spec (ascendopt.toml)",
        "description": "What the kernel computes and how to test it: tensors, attrs, cases, tolerances.",
    }


def render() -> str:
    return json.dumps(spec_json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")
