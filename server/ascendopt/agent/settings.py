"""Episode settings: every number the method leaves open is here, with why."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ascendopt.agent.strategies import DEFAULT_STRATEGY, Strategy

# `--budget N` counts every evaluation: the baseline (1), its noise run (1), the search, the
# re-check of a winner (2: baseline and winner with fresh inputs). At the smallest budget, 4, the
# noise run is left out so one search step fits (the re-check's baseline gives the noise band).
MIN_BUDGET = 4
# The budget when none is asked for: the CLI's, the editor's and the service's.
DEFAULT_BUDGET = 40


class EpisodeSettings(BaseModel):
    """What every front end asks an episode for (the CLI, the editor, a campaign's task), and what
    its journal's start records: a resumed episode runs with these (its budget only ever grows)."""

    budget: int = Field(
        default=DEFAULT_BUDGET,
        ge=MIN_BUDGET,
        description="evaluations (compile + verify + profile), re-checks included",
    )
    seed: int = 0
    backend: str = "cpu-twin"
    soc: str | None = None
    # The LLM model for the rewrites; None: the environment's (ASCENDOPT_LLM_*), if it names one.
    model: str | None = None
    tiling_only: bool = False
    # The search: ours (pattern moves + evolution, with the bank's knob lessons, alternating with
    # kernel rewriting), or a comparison baseline a campaign runs at the same budget
    # (agent/strategies/: random and tpe over the knobs; best-of-n and openevolve, the LLM alone).
    strategy: Strategy = DEFAULT_STRATEGY
    # The paper gives no numbers for S, U, k or the noise threshold; these are ours:
    # S = 2 kernel steps: each costs an LLM call and usually one evaluation; two let a diagnosis
    # be followed up once before the tiling is re-tuned under the new kernel.
    kernel_steps: int = Field(default=2, ge=0)
    # U = 8 tiling evaluations: enough for one sweep of the neighbours of 3-4 knobs.
    tiling_steps: int = Field(default=8, ge=1)
    # k = 3 lessons: the prompt stays short and the retrieval is measured by recall@3.
    top_k: int = Field(default=3, ge=0)
    # A candidate must beat the best by this much, or by twice the measured noise if larger.
    min_improvement: float = Field(default=0.01, ge=0)
    # Proposals are made in fixed batches so a seed gives the same result whatever the slot count.
    batch: int = Field(default=4, ge=1)
    # Evaluations kept back for the final honest re-check (fresh inputs, re-profiled baseline).
    recheck: int = 2
