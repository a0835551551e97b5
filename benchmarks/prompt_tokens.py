"""The kernel rewriter's prompt per template operator, in tokens, against a context (default 64K).

    .venv/bin/python benchmarks/prompt_tokens.py [--context 65536] [--model deepseek-chat] [NAME ...]

Per operator: the files offered (in the order the prompt takes them), the diagnose and rewrite
prompts' tokens as sent (system + user), the budget (the context less the reply's share) and what
was left out. No profile is made here, so the order is kernel, its headers, host. Prints; asserts
nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.prompt_fit import fit_for, rank
from ascendopt.agent.tokens import tokenizer_for
from ascendopt.operators.discovery import load_operator

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "operators"
VALUES = {"layout": "", "profile": "- case c: 10.00 us, vector-bound", "profile_label": "cpu twin"}
LESSONS = "<lessons>\n" + "(three lessons, ~1,500 characters each)\n" * 100 + "</lessons>"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--context", type=int, default=65_536)
    parser.add_argument("--model", default="deepseek-chat")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    settings = LLMSettings(model=args.model, context_tokens=args.context)
    print(f"context {args.context:,} tokens, prompt budget {settings.prompt_budget():,}; "
          f"{tokenizer_for(args.model).label}")
    print(f"{'operator':24} {'files':>5} {'diagnose':>9} {'rewrite':>9}  left out")
    for folder in sorted(p for p in TEMPLATES.iterdir() if p.is_dir()):
        if args.names and folder.name not in args.names:
            continue
        op = load_operator(folder)
        paths = [p for p in (op.files.kernel, op.files.host, op.files.tiling_data) if p]
        texts = {p: (op.root / p).read_text(encoding="utf-8", errors="replace") for p in paths}
        files = rank([(p, texts[p], "editable") for p in paths], op.files.kernel, host=paths[1:])
        shown = {**VALUES, "operator": op.name, "layout": op.layout}
        diagnose = fit_for(settings, "diagnose", files, **shown, findings="none", tried="none")
        told = {"bottleneck": "x" * 300, "change": "y" * 600, "lessons": LESSONS}
        rewrite = fit_for(settings, "rewrite", files, **shown, **told)
        print(f"{op.name:24} {len(files):>5} {diagnose.tokens:>9,} {rewrite.tokens:>9,}  "
              f"{', '.join(rewrite.left_out) or '-'}")


if __name__ == "__main__":
    main()
