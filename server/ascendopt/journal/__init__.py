"""The on-disk record of episodes in `.ascendopt/episodes/<id>/`: append-only events, candidates, summary."""
