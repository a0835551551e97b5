"""Campaigns: one episode per operator and strategy over a whole library, one report.

records (what is on disk), store (the campaign folder), tasks (one episode, runnable in any
process), pools (where tasks run: a local process pool or Ray), metrics (geomean, fast_p,
budget curves), service (what the CLI and the editor call).
"""
