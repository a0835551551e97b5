"""`python -m ascendopt.campaign.worker`: run one campaign task in this process.

Reads an EpisodeTask as JSON on stdin, writes its TaskResult as JSON on stdout. The local pool
runs each task this way so that a cancelled task is a process to terminate, nothing more.
"""

from __future__ import annotations

import sys

from ascendopt.campaign.tasks import EpisodeTask, run_task
from ascendopt.scratch import own_process


def main() -> None:
    # The pool terminates a cancelled task's worker: its candidate copies and builds live in the
    # scratch folder, which that SIGTERM removes, as it does for the CLI.
    with own_process().exits():
        task = EpisodeTask.model_validate_json(sys.stdin.buffer.read())
        result = run_task(task)
    sys.stdout.write(result.model_dump_json())


if __name__ == "__main__":
    main()
