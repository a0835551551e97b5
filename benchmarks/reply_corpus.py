"""The realistic-reply corpus (tests/agent/reply_corpus.py) as a table: each reply, applied or refused
(by the parser, or by the judge's audit after parsing), and why. Paste it in a note.

    PYTHONPATH=server:. .venv/bin/python benchmarks/reply_corpus.py
"""

from __future__ import annotations

from tests.agent.reply_corpus import CORPUS, run, table


def main() -> int:
    print(table())
    wrong = [s.name for s in CORPUS if run(s).status != s.outcome]
    print(
        f"\n{len(CORPUS)} replies; {len(CORPUS) - len(wrong)} as expected"
        + (f"; not: {wrong}" if wrong else "")
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
