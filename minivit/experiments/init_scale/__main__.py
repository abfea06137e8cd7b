"""`python -m minivit.experiments.init_scale`: the σ sweep (see command.py)."""

import sys

from minivit.experiments import command_line
from minivit.experiments.init_scale.command import main

sys.exit(command_line(main, "python -m minivit.experiments.init_scale"))
