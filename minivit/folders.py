"""What a command or `fit` may write into: a run folder that can be written, with room for its
checkpoints (`check_writable`), and that holds no checkpoint, history or run it did not start unless
asked to continue it (`check_unclaimed`), so that nothing a user trained is overwritten."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

CHECKPOINT = "checkpoint.pt"
RUN = "run.json"  # what `minivit train` writes beside the checkpoint: the task, the data, the config
HISTORY = "history.json"  # and, at its end, the loss curve

__all__ = ["CHECKPOINT", "HISTORY", "RUN", "check_unclaimed", "check_writable", "unreadable"]


def check_unclaimed(out: Path, *, resume: bool, name: str = "out", command: bool = False) -> None:
    """Raise a ValueError, before anything is written, if the run folder `out` (the argument `name`)
    holds what this run did not start: a checkpoint (unless `resume`), or for `minivit train`
    (`command`) a run.json (unless `resume`) or a history.json without the run.json that says a run
    of minivit wrote it. Continuing is asked for with resume=True (`--resume`); to start over, a
    user removes the files or names another folder."""
    cont = "--resume" if command else "resume=True"
    run, checkpoint, history = (_exists(out / f) for f in (RUN, CHECKPOINT, HISTORY))
    if command and run and not resume:
        raise ValueError(f"{out} already holds a run; pass --resume to continue it, or another --out")
    if checkpoint and not resume:
        alone = "" if run or not command else f", no {RUN}"  # what fit(out=) leaves
        raise ValueError(
            f"{name} {out} already holds a checkpoint ({CHECKPOINT}{alone}); "
            f"pass {cont} to continue it, or another {name} (or delete the checkpoint to start over)"
        )
    if command and history and not run:
        raise ValueError(
            f"{name} {out} holds a {HISTORY} that no run of minivit left there (no {RUN} beside it); "
            f"move it away, or choose another {name}"
        )


def unreadable(path: Path, err: OSError, what: str = "") -> str:
    """One line for a file that could not be read (`err`), naming its culprit: permissions as
    permissions (not as damage), a folder or a special file in the way, or the disk."""
    what = f", {what}" if what else ""
    reason = err.strerror or str(err)
    if isinstance(err, PermissionError):
        fix = f"its permissions forbid reading it: give yourself read access (chmod u+r {path})"
    elif isinstance(err, IsADirectoryError):
        fix = "a folder is where the file goes; move that folder away (minivit did not make it)"
    else:
        fix = "check the disk, or restore the file from a copy"
    return f"cannot read {path}{what} ({reason}); {fix}"


def _exists(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except OSError:  # a name too long to ask about: check_writable says so
        return False


def check_writable(out: Path, *, model_bytes: int, name: str = "--out", resume: bool | None = None) -> None:
    """Raise a ValueError before training if the run folder `out` (the argument `name`) cannot be
    created or written, or its disk lacks room for the checkpoints to come, and leave nothing behind:
    the folders this check makes to try are removed again. A checkpoint is written beside the one
    before it, then renamed over it: a run needs room for two of `model_bytes` (an estimate), less
    what the checkpoint already in `out` (a resumed run's) takes, counted at its real size. With
    `resume` False, a checkpoint already in `out` is refused too (`check_unclaimed`)."""
    if resume is not None:
        check_unclaimed(out, resume=resume, name=name)
    made = []
    try:
        for folder in [out, *out.parents]:
            if folder.exists() or folder.is_symlink():
                break
            made.append(folder)
        for attempt in range(3):  # a run checking the same new folder at once may remove it between
            out.mkdir(parents=True, exist_ok=True)
            probe = out / f".write-test-{os.getpid()}"
            try:
                probe.write_bytes(b"minivit")
                break
            except FileNotFoundError:
                if attempt == 2:
                    raise
        probe.unlink()
        for kept_name in (CHECKPOINT, CHECKPOINT + ".sha256", RUN, HISTORY, "run.lock"):
            if (out / kept_name).is_dir():
                raise IsADirectoryError(
                    errno.EISDIR, "a folder is where a run keeps a file", str(out / kept_name)
                )
        free = shutil.disk_usage(out).free
        there = out / CHECKPOINT
        size = there.stat().st_size if there.is_file() else 0
    except OSError as err:
        if err.errno == errno.EISDIR:
            raise ValueError(
                f"cannot write to {name} {out}: {err.filename} is a folder, where the run keeps a file; "
                f"move that folder away, or choose another {name}"
            ) from None
        fix = (
            "use a shorter folder name (at most 255 bytes a name, 4096 a path)"
            if err.errno == errno.ENAMETOOLONG
            else "choose a folder you can write to"
        )
        raise ValueError(f"cannot write to {name} {out}: {err.strerror or err}; {fix}") from None
    finally:
        for folder in made:  # deepest first; a folder something else wrote into since is left
            try:
                folder.rmdir()
            except OSError:
                break
    each = size or model_bytes
    need = 2 * each - size
    if free < need:
        has, needs = _megabytes(free, need)
        what = (
            f"the {needs} MB a second checkpoint of this model (as large as the one there) needs"
            if size
            else f"the {needs} MB two checkpoints of this model need"
        )
        raise ValueError(
            f"{name} {out} has {has} MB free, less than {what}; free some space or choose another folder"
        )


def _megabytes(free: int, need: int) -> tuple[str, str]:
    """Both in MB, with as many decimals as it takes for them to read differently (0.16 and 0.23,
    not 0.2 and 0.2)."""
    for digits in range(1, 7):
        has, needs = f"{free / 1e6:.{digits}f}", f"{need / 1e6:.{digits}f}"
        if has != needs:
            break
    return has, needs
