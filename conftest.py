"""Every pytest run (the unit tests and nbval on the lessons) checks claims strictly: a claim that
misses raises, where a learner's run would show a warning block and go on (``minivit.lesson``)."""

import os

os.environ.setdefault("MINIVIT_STRICT", "1")
