"""The initial scale of a learned position table decides what it becomes (Ito et al. 2024,
"Learning interpretable positional encodings in transformers depends on initialization",
arXiv 2406.08272), on the Latin square task (`minivit.data.lst`).

A learnable table per block, initialised N(0, sigma^2). In the authors' logged runs (their
repository's processed_data/ito_models, 15 seeds per sigma) every sigma from 0.1 to 2 fits its
training puzzles; started small the table generalizes to the human study's puzzles (0.93-0.96 at
sigma <= 0.5), started at sigma = 2 it does not (0.38): the model has fitted its training puzzles
another way. The fixed 2-D sinusoid is the comparison.

Every sweep runs on the reference's own puzzle files (a copy ships with minivit), split as the
reference splits them (`lst.reference_splits`); the sweep file is written after every run, and a
re-run trains only what it does not hold yet. Runs that never trained (`is_dead`) are named and
left out of every mean.

What matters is sigma against how far training moves the table. Adam moves an entry by typically
about the learning rate per step (a few times more at most), so the sum of the table's learning
rates over a run, its *reach* (`Setting.reach`), says roughly how far it can travel.

A file to a concept; every name is importable from here (`init_scale.train_one(...)`):

    setting.py   Setting, the named SETTINGS (`reference`: Ito et al.'s run, aspect by aspect),
                 PUBLISHED, make_data
    measures.py  what a run is measured by: measure_run, is_dead, tables, start_tables, alignment
    runs.py      train_one, train_many (an ensemble where that pays), sweep, summarize
    command.py   main: `python -m minivit.experiments.init_scale --help`, with the recorded sweeps'
                 commands
"""

from minivit.experiments.init_scale.command import DEFAULT_OUT, main
from minivit.experiments.init_scale.measures import (
    DEAD_LOSS,
    alignment,
    attention,
    is_dead,
    measure_run,
    start_tables,
    tables,
)
from minivit.experiments.init_scale.runs import summarize, sweep, train_many, train_one
from minivit.experiments.init_scale.setting import (
    CPU_RUN,
    EPOCH,
    GRID,
    PUBLISHED,
    PUZZLES,
    REFERENCE,
    REFERENCE_RUN,
    SETTINGS,
    SIGMAS,
    Setting,
    encodings,
    label,
    make_data,
)

__all__ = [
    "CPU_RUN",
    "DEAD_LOSS",
    "DEFAULT_OUT",
    "EPOCH",
    "GRID",
    "PUBLISHED",
    "PUZZLES",
    "REFERENCE",
    "REFERENCE_RUN",
    "SETTINGS",
    "SIGMAS",
    "Setting",
    "alignment",
    "attention",
    "encodings",
    "is_dead",
    "label",
    "main",
    "make_data",
    "measure_run",
    "start_tables",
    "summarize",
    "sweep",
    "tables",
    "train_many",
    "train_one",
]
