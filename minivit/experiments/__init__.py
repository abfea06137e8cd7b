"""Experiments behind the lessons' recorded results: each module trains the runs, measures them and
writes a JSON file (with the command, date and hardware that produced it) that a lesson plots.

    python -m minivit.experiments.init_scale --help     # lesson 07: the initial scale of a learned table
"""

from __future__ import annotations

import datetime
import platform
import shlex
from typing import Any

import torch


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def provenance(module: str, args: list[str], device: torch.device) -> dict[str, Any]:
    """What produced a result: the command, the date, the machine and the library versions."""
    if device.type == "cuda":
        hardware = torch.cuda.get_device_name(device)
    else:
        hardware = f"{cpu_name()}, {torch.get_num_threads()} thread(s)"
    return {
        "command": shlex.join(["python", "-m", module, *args]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hardware": hardware,
        "torch": torch.__version__,
        "python": platform.python_version(),
    }
