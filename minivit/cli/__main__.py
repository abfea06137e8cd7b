"""`python -m minivit.cli`: the `minivit` command (what torchrun launches, one process per GPU)."""

import sys

from minivit.cli.command import main

sys.exit(main())
