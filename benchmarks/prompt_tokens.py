"""The kernel rewriter's prompt per operator, in tokens, against a context (default 64K).

    .venv/bin/python benchmarks/prompt_tokens.py [--context 65536] [--model deepseek-chat] [NAME ...]
    .venv/bin/python benchmarks/prompt_tokens.py OP_FOLDER --spec SPEC [...]   (any operator)

Per operator: the files of its rewrite scope (operators/scope.py: what the SoC's build compiles in
the operator folder, repository headers read-only), the diagnose and rewrite prompts' tokens as
sent (system + user), the budget (the context less the reply's share) and what was left out. No
profile is made here, so the order is kernel, its headers, host. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.prompt_fit import Fitted, fit_for, rank_scope
from ascendopt.agent.tokens import tokenizer_for
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.scope import rewrite_scope

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "operators"
VALUES = {"layout": "", "profile": "- case c: 10.00 us, vector-bound", "profile_label": "cpu twin"}
LESSONS = "<lessons>\n" + "(three lessons, ~1,500 characters each)\n" * 100 + "</lessons>"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--context", type=int, default=65_536)
    parser.add_argument("--model", default="deepseek-chat")
    parser.add_argument("--spec", type=Path, help="the spec of the one operator folder given")
    parser.add_argument("names", nargs="*", help="template names, or operator folders")
    args = parser.parse_args()
    settings = LLMSettings(model=args.model, context_tokens=args.context)
    print(f"context {args.context:,} tokens, prompt budget {settings.prompt_budget():,}; "
          f"{tokenizer_for(args.model).label}")
    print(f"{'operator':24} {'files':>5} {'diagnose':>9} {'rewrite':>9}  left out")
    folders = [Path(n) for n in args.names if Path(n).is_dir()]
    if not folders:
        folders = [p for p in sorted(TEMPLATES.iterdir()) if p.is_dir()]
        folders = [p for p in folders if not args.names or p.name in args.names]
    for folder in folders:
        op = load_operator(folder, spec=args.spec if len(folders) == 1 else None)
        rewrite, diagnose, count = _prompts(op, settings)
        print(f"{op.name:24} {count:>5} {diagnose.tokens:>9,} {rewrite.tokens:>9,}  "
              f"{', '.join(rewrite.left_out) or '-'}")


def _prompts(op: OperatorProject, settings: LLMSettings) -> tuple[Fitted, Fitted, int]:
    texts = op.read_files()
    files = rank_scope(rewrite_scope(op, texts), texts, op.files.kernel)
    shown = {**VALUES, "operator": op.name, "layout": op.layout}
    diagnose = fit_for(settings, "diagnose", files, **shown, findings="none", tried="none")
    told = {"bottleneck": "x" * 300, "change": "y" * 600, "lessons": LESSONS}
    return fit_for(settings, "rewrite", files, **shown, **told), diagnose, len(files)


if __name__ == "__main__":
    main()
