"""The `minivit` command (`minivit --help`; under torchrun, `python -m minivit.cli`), a file to a
concept; every name is importable from here (`from minivit.cli import main`):

    command.py   main and its parser: the options of each subcommand, one-line errors that name the
                 option as it was typed, what a Ctrl-C leaves behind; `minivit encodings`
    training.py  `minivit train`: every check before anything is written, then run.json, the
                 training, and the run's metrics and history (the first process alone writes, under
                 torchrun)
    runs.py      a run folder read back (`read_run`: run.json checked key by key) and `minivit eval`
"""

from minivit.cli.command import build_parser, cmd_encodings, main
from minivit.cli.runs import HISTORY, RUN, RUN_KEYS, cmd_eval, read_run
from minivit.cli.training import FLAGS, cmd_train

__all__ = [
    "FLAGS",
    "HISTORY",
    "RUN",
    "RUN_KEYS",
    "build_parser",
    "cmd_encodings",
    "cmd_eval",
    "cmd_train",
    "main",
    "read_run",
]
