"""`python -m ascendopt.campaign.worker TASK RESULT`: run one campaign task in this process.

Reads an EpisodeTask as JSON from the file TASK, writes its TaskResult as JSON to the file RESULT.
The local pool runs each task this way so that a cancelled task is a process to terminate.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ascendopt.campaign.tasks import EpisodeTask, run_task
from ascendopt.scratch import own_process


def main() -> None:
    # The pool terminates a cancelled task's worker: its candidate copies and builds live in the
    # scratch folder, which that SIGTERM removes, as it does for the CLI.
    given, result_file = (Path(a) for a in sys.argv[1:3])
    with own_process().exits():
        task = EpisodeTask.model_validate_json(given.read_text(encoding="utf-8"))
        result = run_task(task)
    result_file.write_text(result.model_dump_json(), encoding="utf-8")


if __name__ == "__main__":
    main()
