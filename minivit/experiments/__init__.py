"""Experiments behind the lessons' recorded results: each module trains the runs, measures them and
writes a JSON file (with the command, date and hardware that produced it) that a lesson plots.

    python -m minivit.experiments.init_scale --help     # lesson 07: the initial scale of a learned table
    python -m minivit.experiments.resolution --help     # lesson 08: one model, many resolutions

`recorded(name)` reads a recorded result for a lesson (they ship in `minivit/experiments/recorded/`);
`write_result`, `read_result`, `resumable` and `carried_on` write a sweep as it goes and carry it on
after a stop;
`check_options` checks the options the commands share before anything is trained or written;
`model_config` is the model of a setting that names its patch size, width, depth and heads.
"""

from __future__ import annotations

import argparse
import datetime
import errno
import json
import os
import platform
import shlex
import sys
from collections.abc import Callable
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from minivit.config import ViTConfig
from minivit.runsafety import write_json


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


def write_result(result: dict[str, Any], path: str | Path) -> Path:
    """Write a result as JSON atomically (`minivit.runsafety.write_atomic`): an interrupted run never
    leaves half a file where a recorded result was, and a write that fails (a full disk) raises
    SaveFailed, the file before it intact."""
    out = Path(path)
    write_json(out, result, indent=1)
    return out


def read_result(path: str | Path) -> dict[str, Any]:
    """A result written by `write_result`, or a ValueError naming the file and what to do when it is
    damaged (cut short, edited, not a result)."""
    path = Path(path)
    try:
        result = json.loads(path.read_text())
    except OSError as err:  # a folder at --out, permissions: said as such, not as damage
        from minivit.folders import unreadable

        raise ValueError(unreadable(path, err, "a sweep's result") + "; or give another --out") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{path} is not a result's JSON ({err}): the file is damaged or cut short; give another --out, "
            "or move it away to start the sweep again"
        ) from None
    if not isinstance(result, dict):
        raise ValueError(
            f"{path} holds {type(result).__name__}, not a result (a JSON object); give another --out, or "
            "move it away to start the sweep again"
        )
    return result


def check_options(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The options an experiment command shares (--threads, --seeds, --seed, --steps, --lr, --evals,
    --sigmas, --device), checked before anything is trained or written: the first one out of range
    ends the command in one line (`ap.error`, exit status 2) naming it and what it takes."""
    from minivit.checks import check_number, check_whole
    from minivit.devices import check_device
    from minivit.fitchecks import MAX_SEED, MAX_STEPS

    given = vars(args)
    try:
        if given.get("threads") is not None:
            check_whole("--threads", args.threads, 1, os.cpu_count() or 1)
        seeds = given.get("seeds")
        if isinstance(seeds, int):  # a count: seeds 0..N-1
            check_whole("--seeds", seeds, 1)
        elif seeds is not None:  # the seeds themselves
            for seed in seeds:
                check_whole("--seeds", seed, 0, MAX_SEED)
        if given.get("seed") is not None:
            check_whole("--seed", args.seed, 0, MAX_SEED)
        if given.get("steps") is not None:
            check_whole("--steps", args.steps, 1, MAX_STEPS)
        if given.get("lr") is not None:
            check_number("--lr", args.lr, low=0, low_ok=False)
        if given.get("evals") is not None:
            check_whole("--evals", args.evals, 0)
        for sigma in given.get("sigmas") or ():
            check_number("--sigmas", sigma, low=0)
        check_device(given.get("device"))
    except ValueError as err:
        text = str(err)
        ap.error(text.replace("device=", "--device=", 1) if text.startswith("device=") else text)


def resumable(
    path: str | Path | None,
    setting: Any,
    *,
    restart: str = "delete it to start again",
    keep_removed: bool = False,
) -> dict[str, Any] | None:
    """The result of a sweep already at `path`, to carry on from (None where there is no path or no
    file), or a ValueError naming the settings that differ when it was made with another `setting`
    (a dataclass; the result holds it as `asdict(setting)` under "setting").

    Args:
        restart: how to start the sweep again instead, for the error: "give another --out, or ...".
        keep_removed: settings the file holds that `setting` no longer has (a field since removed)
            do not count as a difference.
    """
    if path is not None:
        check_result_out(path)
    if path is None or not Path(path).exists():
        return None
    before = read_result(path)
    now = asdict(setting)
    changed = sorted(k for k, v in now.items() if before.get("setting", {}).get(k) != v)
    if changed or (not keep_removed and before.get("setting") != now):
        raise ValueError(
            f"{path} holds a sweep with other settings ({', '.join(changed) or 'unreadable'}); "
            f"give another --out, or {restart}"
        )
    return before


def check_result_out(path: str | Path) -> None:
    """Raise a ValueError before anything is trained unless a sweep's result can be written at `path`
    (its --out): not a folder, and in a folder that exists or can be made, and can be written (a try,
    removed again), so a sweep never trains for hours to lose its result at the end."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(
            f"--out {path} is a folder; name the result's file, e.g. --out {path / 'result.json'}"
        )
    folder = next(p for p in path.absolute().parents if p.exists())
    probe = folder / f".write-test-{os.getpid()}"
    try:
        if not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "a file is where a folder goes", str(folder))
        probe.write_bytes(b"minivit")
        probe.unlink()
    except OSError as err:
        raise ValueError(
            f"cannot write --out {path} ({err.strerror or err} in {folder}); nothing was trained; choose "
            "a place you can write to"
        ) from None


def carried_on(path: str | Path, chosen: dict[str, Any], *, fresh: bool = False) -> dict[str, Any]:
    """A sweep of several settings already at `path` ({"settings": {name: asdict(setting)}, "runs",
    "seconds"}), to carry on from: its runs of every setting, kept where the setting (a dataclass in
    `chosen` by name) is unchanged but for its list of variants (a variant added since is trained,
    the others are not trained again). A setting changed otherwise is a ValueError naming what
    changed; `fresh` (or no file) starts an empty sweep."""
    empty: dict[str, Any] = {"settings": {}, "seconds": 0.0, "runs": []}
    check_result_out(path)
    if fresh or not Path(path).exists():
        return empty
    before = read_result(path)
    for name, setting in chosen.items():
        old = before.get("settings", {}).get(name)
        if old is None:
            continue
        now = asdict(setting)
        changed = sorted(
            k
            for k in set(now) | set(old)
            if k != "variants" and json.loads(json.dumps(now.get(k))) != old.get(k)
        )
        if changed:
            raise ValueError(
                f"{path} holds {name} runs with other settings ({', '.join(changed)}); "
                "give another --out, or --fresh to start it again"
            )
    earlier = before.get("earlier", []) + ([before["provenance"]] if "provenance" in before else [])
    return {
        **empty,
        **{k: before[k] for k in ("settings", "seconds", "runs") if k in before},
        "earlier": earlier,
    }


def recorded(name: str) -> dict[str, Any]:
    """A recorded result, `minivit/experiments/recorded/<name>`: it ships inside the package
    (`importlib.resources`), so a pip install (as on Colab) reads it with nothing downloaded."""
    known = sorted(p.name for p in (resources.files(__package__) / "recorded").iterdir() if p.is_file())
    path = resources.files(__package__) / "recorded" / str(name)
    if name not in known:  # a name it lists, never a path: nothing outside recorded/ is read
        raise FileNotFoundError(
            f"no recorded result {name!r}; recorded: {', '.join(known)} "
            "(produce another with its experiment's command and --out minivit/experiments/recorded/NAME)"
        )
    restore = (
        f"restore it (git checkout -- minivit/experiments/recorded/{name}, or reinstall minivit), or "
        "produce it again with its experiment's command"
    )
    try:
        return json.loads(path.read_text(), object_hook=lambda d: _Recorded(d, name, restore))
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(
            f"the recorded result {path} is not valid JSON ({err}): damaged or edited; {restore}"
        ) from None


class _Recorded(dict):
    """A dict read from a recorded result: a key it lacks is a KeyError that names the file and how to
    restore it (a lesson reads keys the file has always had, so a missing one means it was edited)."""

    def __init__(self, items: dict, name: str, restore: str):
        super().__init__(items)
        self._name, self._restore = name, restore

    def __missing__(self, key: Any):
        holds = ", ".join(map(str, list(self)[:8])) + (", ..." if len(self) > 8 else "")
        raise KeyError(
            f"{key!r} is not in the recorded result {self._name} (it holds {holds}): the file was edited "
            f"or damaged; {self._restore}"
        )

    def __reduce__(self):  # pickles, deep-copies and json-dumps as the plain dict it is
        return (dict, (dict(self),))


def model_config(setting: Any, **fields: Any) -> ViTConfig:
    """The model of an experiment's `setting`: its patch size, width, depth and heads, with `fields`
    for the rest (image size, channels, classes, position)."""
    return ViTConfig(
        patch_size=setting.patch_size, dim=setting.dim, depth=setting.depth, heads=setting.heads, **fields
    )


def command_line(main: Callable[[], Any], prog: str) -> int:
    """Run an experiment's `main` as a command: a dataset it cannot have, or a file it cannot find,
    ends in one line that says so (exit status 2), not a traceback."""
    from minivit.data import DatasetUnavailable
    from minivit.runsafety import SaveFailed

    try:
        main()
    except (DatasetUnavailable, FileNotFoundError, ValueError, SaveFailed) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of stdout has gone (`| head`); the result is written
        return 0
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    return 0
