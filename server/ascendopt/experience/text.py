"""Words out of prose and AscendC code, for indexing and for FTS5 queries.

Code identifiers are kept whole (PipeBarrier, BUFFER_NUM) *and* split into their parts
(pipe, barrier, buffer, num), so a lesson about "pipe barriers" meets a kernel full of
`PipeBarrier<PIPE_ALL>()` and the other way round.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
# camelCase / PascalCase / ACRONYMWord boundaries, and digits kept with their letters (fp16, b32).
_PART = re.compile(r"[A-Z]+(?![a-z])[0-9]*|[A-Z]?[a-z]+[0-9]*|[0-9]+")

# Words too common in lessons and diagnoses to say anything about which lesson fits.
STOPWORDS = frozenset(
    (
        *("a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "do", "does", "for"),
        *("from", "has", "have", "in", "into", "is", "it", "its", "of", "on", "or", "so", "than", "that"),
        *("the", "then", "there", "these", "this", "to", "too", "up", "was", "we", "were", "when", "where"),
        *("which", "while", "with", "without", "not", "no", "nor", "very", "much", "more", "most", "eg"),
        *("ie", "per", "each", "every", "all", "any", "one", "two", "after", "before", "still", "also"),
        *("only", "just", "about", "over", "under", "same", "other"),
        # Every diagnosis is about slowness and every lesson about a kernel: these words rank noise.
        *("slow", "slower", "slowly", "fast", "faster", "speed", "speedup", "performance", "perf"),
        *("kernel", "operator", "op", "time"),
    )
)

MAX_QUERY_TOKENS = 64  # a long hot-code excerpt must not turn into a thousand-term query


def identifier_parts(word: str) -> list[str]:
    parts: list[str] = []
    for chunk in word.split("_"):
        parts.extend(p.lower() for p in _PART.findall(chunk))
    return parts


def words(text: str) -> list[str]:
    """Lower-cased words of the text, each identifier followed by its parts (if it has several)."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.append(word.lower())
        parts = identifier_parts(word)
        if len(parts) > 1:
            out.extend(parts)
    return out


def index_text(text: str) -> str:
    """What the FTS index stores for a text: the text itself plus the parts of its identifiers."""
    extra = [p for w in _WORD.findall(text) if len(ps := identifier_parts(w)) > 1 for p in ps]
    return text if not extra else text + "\n" + " ".join(extra)


def query_tokens(text: str, limit: int = MAX_QUERY_TOKENS) -> list[str]:
    seen: dict[str, None] = {}
    for w in words(text):
        if w in STOPWORDS or len(w) < 2 or w.strip("_") == "":
            continue
        seen.setdefault(w, None)
        if len(seen) >= limit:
            break
    return list(seen)


def fts_match(tokens: list[str]) -> str | None:
    """An FTS5 MATCH expression: each token a quoted string, OR'ed.

    Quoting makes every token a plain string to FTS5, so user text such as `NEAR(`, `"`, `*`,
    `col:` or a bare AND/OR/NOT can never be parsed as query syntax. \\w+ tokens carry no quote
    characters, so the quoting needs no escaping.
    """
    if not tokens:
        return None
    return " OR ".join(f'"{t}"' for t in tokens)
