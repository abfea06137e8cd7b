"""What keeps a run's work safe while it trains: one run per folder, a stop signal that saves, and a
write that fails without losing the last good file.

- `run_lock(folder)`: a second run into a folder in use is refused. The lock file (`run.lock`)
  names the run that holds it (pid, host, start time) and is held with `flock` while the run lives;
  a run that died (killed, out of memory, a closed laptop) leaves a stale lock no process holds
  (where the disk cannot lock: whose pid is gone), which the next run takes over, saying so. A lock
  of a run on another host cannot be checked from here: it is refused, with the file to delete.
- `StopSignals`: the first Ctrl-C (SIGINT) or SIGTERM (what a scheduler, `kill` or Colab sends)
  lets the step finish and be saved; a second one stops at once. A run stopped that way raises
  `Interrupted`, which says at which step it stopped and where that step was saved.
- `write_atomic(path, write)`: every file a run or a sweep writes (checkpoint, run.json, history,
  a recorded result) is written to a temporary file beside it and renamed over it. Any failure on
  the way (a full disk, a file-size limit, a name too long, a folder in the way, torch's zip writer
  failing after the disk did) raises `SaveFailed`: one line naming the file, the cause and the fix,
  with the half-written temporary file removed and the previous file intact.
- `say(text)`: print to stdout, and keep running, silent, once the reader has gone (`| head`).

Nothing here imports torch or the rest of minivit.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: the lock file alone, checked by what it says
    fcntl = None

LOCK = "run.lock"
_held: dict[str, int] = {}  # lock files this process holds, with how many times it entered each


class SaveFailed(RuntimeError):
    """A file could not be written (`reason`: the system's words, e.g. "No space left on device");
    the previous version of it, if any, is intact."""

    def __init__(self, message: str, path: Path, reason: str, full: bool, advice: str = ""):
        super().__init__(message)
        self.path, self.reason, self.full = path, reason, full
        self.advice = advice or (
            "free some space on that disk" if full else "check that the folder can be written"
        )


def _os_error(err: BaseException) -> OSError | None:
    """The OSError behind `err`: itself, or the one it was raised while handling (torch's zip writer
    raises `RuntimeError: unexpected pos` while closing a file whose write failed)."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, OSError):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long to ask about
        return False


def save_failed(path: Path, err: BaseException) -> SaveFailed:
    """The SaveFailed for a write of `path` that raised `err`: what happened, what is kept, what to do."""
    os_err = _os_error(err)
    if os_err is not None:
        reason = os_err.strerror or str(os_err)
        code = os_err.errno
    else:
        reason = f"{type(err).__name__}: {(str(err).splitlines() or [''])[0][:200]}"
        code = None
    full = code in (errno.ENOSPC, errno.EDQUOT)
    if full:
        advice = "free some space on that disk"
    elif code == errno.EFBIG:
        advice = (
            "the file is larger than this shell's file-size limit (ulimit -f); raise it (ulimit -f unlimited)"
        )
    elif code == errno.ENAMETOOLONG:
        advice = "use a shorter folder name (at most 255 bytes a name, 4096 a path)"
    elif code in (errno.EISDIR, errno.ENOTDIR, errno.EEXIST):
        advice = f"a folder or file is in the way of {path}; move it away, or choose another folder"
    else:
        advice = "check that the folder can be written"
    kept = "its previous version is kept" if _is_file(path) else "nothing was written"
    return SaveFailed(f"cannot write {path} ({reason}); {kept}; {advice}", path, reason, full, advice)


def write_atomic(
    path: str | Path,
    write: Callable[[BinaryIO], object],
    *,
    then: Callable[[Path], object] | None = None,
) -> None:
    """Write a file through a temporary file in the same folder and a rename, so a crash or a kill
    mid-write leaves the previous file intact, never half of a new one. `then(temporary_path)` runs
    after the bytes are on disk and before the rename. Any failure raises SaveFailed (one line: the
    file, the cause, the fix), with the temporary file removed and the previous file intact; a
    Ctrl-C does the same and goes on as a Ctrl-C."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder of that name is in the way", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if then is not None:
            then(tmp)
        os.replace(tmp, path)
    except Exception as err:
        raise save_failed(path, err) from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    try:
        for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by runs killed mid-write
            stale.unlink(missing_ok=True)
    except OSError:
        pass


def write_json(path: str | Path, value: object, *, indent: int | None = 2) -> None:
    """`value` as JSON in `path`, written by `write_atomic`."""
    text = json.dumps(value, indent=indent) + ("\n" if indent is not None else "")
    write_atomic(path, lambda f: f.write(text.encode()))


def say(*values: object, **kwargs) -> None:
    """print(), to stdout unless `file` says otherwise; once the reader of stdout has gone (`minivit
    train ... | head -1`), the rest is dropped instead of stopping the run with BrokenPipeError."""
    try:
        print(*values, **kwargs)
        if kwargs.get("file") is None:
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so nothing more (Python's flush at exit included) hits the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is not a file (a notebook's, a test's)
        pass


def _started(pid: int) -> str | None:
    """When process `pid` started, in clock ticks since boot (Linux's /proc), or None where unknown:
    with the pid, it names a process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(holder: dict) -> bool:
    """Whether the process a lock file names runs on this host (a process of another user counts)."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if os.name == "nt":  # os.kill would end the process there: count it alive
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = _started(pid)
    return started is None or holder.get("ticks") in (None, started)


def _holder(fd: int) -> dict:
    """What the lock file says of the run that holds (or held) it: {} if nothing readable."""
    try:
        holder = json.loads(os.pread(fd, 4096, 0).decode(errors="replace"))
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def _who(holder: dict) -> str:
    started = f", started {holder['started']}" if holder.get("started") else ""
    return f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}{started}"


@contextmanager
def run_lock(
    folder: str | Path, *, name: str = "out", say: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold `folder/run.lock` while the body runs; raise a ValueError (naming `name`, the argument
    that named the folder) if another live run holds it. A lock left by a run that died is taken
    over, and `say` (default: print to stderr) says so. Nested calls in one process share the lock."""
    say = say or (lambda text: print(text, file=sys.stderr))
    folder = Path(folder)
    path = folder / LOCK
    key = os.path.abspath(path)
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    fd = _acquire(folder, path, name, say)
    _held[key] = 1
    try:
        yield
    finally:
        del _held[key]
        try:
            path.unlink(missing_ok=True)  # while still held: no run can take it between
        finally:
            os.close(fd)


def _acquire(folder: Path, path: Path, name: str, say: Callable[[str], None]) -> int:
    """Open, lock and fill in the lock file; return its descriptor."""
    host = socket.gethostname()
    try:
        made = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder is where the lock file goes", str(path))
    except OSError as err:
        raise ValueError(_cannot_lock(path, name, err)) from None
    for _ in range(10):  # the lock file may be removed by its holder between our open and our flock
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise ValueError(_cannot_lock(path, name, err)) from None
        try:
            locked = _flock(fd)  # True: ours now, so whoever wrote the file has ended
            holder = _holder(fd)
            if locked is False or _same_file(fd, path):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    else:
        raise ValueError(f"cannot lock {path}: other runs keep taking it; choose another {name}")
    try:
        here = holder.get("host") == host and holder.get("pid") != os.getpid()
        if locked is False or (locked is None and here and _alive(holder)):
            unsure = f"; if that run has ended, delete {path}" if locked is None else ""
            raise ValueError(
                f"{name} {folder} is in use by another run ({_who(holder)}); wait for it to end, or "
                f"choose another {name}{unsure}"
            )
        if holder and holder.get("host") != host:
            raise ValueError(
                f"{name} {folder} is locked by a run on another host ({_who(holder)}), which cannot be "
                f"checked from here; if that run has ended, delete {path}; else choose another {name}"
            )
        if holder and holder.get("pid") != os.getpid():
            say(f"minivit: took over the stale lock of a run no longer running ({_who(holder)}) in {folder}")
        mine = {"pid": os.getpid(), "ticks": _started(os.getpid()), "host": host,
                "started": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(mine).encode(), 0)
        except OSError as err:  # a full disk: no lock file left behind, nor a folder made for it
            path.unlink(missing_ok=True)
            if made:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise ValueError(_cannot_lock(path, name, err)) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _cannot_lock(path: Path, name: str, err: OSError) -> str:
    reason = err.strerror or str(err)
    if err.errno == errno.EISDIR:
        return (
            f"cannot lock {path}: a folder is where the run's lock file goes ({reason}); remove that "
            f"folder (it is not minivit's), or choose another {name}"
        )
    full = err.errno in (errno.ENOSPC, errno.EDQUOT)  # before any training: free space and go on
    fix = "free some space on that disk, or choose another" if full else "choose another"
    return f"cannot lock {path} ({reason}); {fix} {name}{'' if full else ' you can write to'}"


def _flock(fd: int) -> bool | None:
    """Take the lock of `fd` without waiting: True once held, False if another process holds it, None
    where there is no flock (Windows, some network disks): the lock file's pid and host then decide."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # the filesystem does not lock
        return None
    return True


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


class StopSignals:
    """While active (in the main thread of a single process): the first Ctrl-C (SIGINT) or SIGTERM
    only sets `received` ("Ctrl-C" or "SIGTERM"), so the loop can finish its step and save; a second
    one of either raises KeyboardInterrupt at once. Under torchrun the processes would stop at
    different steps, so there both keep their usual effect (the atomic checkpoint stays intact)."""

    SIGNALS = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}

    def __init__(self, say: Callable[[str], None], single_process: bool = True):
        self.received: str | None = None
        self.say, self.single_process = say, single_process
        self.previous: dict[int, object] = {}

    @property
    def pressed(self) -> bool:
        return self.received is not None

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread() and self.single_process:
            for signum in self.SIGNALS:
                self.previous[signum] = signal.signal(signum, self._first)
        return self

    def _first(self, signum, frame) -> None:
        if self.received is not None:
            raise KeyboardInterrupt
        self.received = self.SIGNALS[signum]
        again = "Ctrl-C again" if signum == signal.SIGINT else "a second signal"
        self.say(f"\n{self.received}: finishing this step and saving it ({again} to stop at once)")

    def __exit__(self, *exc) -> None:
        for signum, previous in self.previous.items():
            signal.signal(signum, previous)


class Terminated(KeyboardInterrupt):
    """A SIGTERM that stopped a command outside its training loop (before the first step, during the
    final evaluation), raised there as a Ctrl-C raises KeyboardInterrupt (`sigterm_stops`)."""


@contextmanager
def sigterm_stops() -> Iterator[None]:
    """While active (in the main thread), a SIGTERM raises Terminated instead of ending the process
    where it stands, so a command unwinds (its lock released) and says what it kept; the training
    loop's `StopSignals` takes the signal over while it runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Interrupted(KeyboardInterrupt):
    """Training stopped at a Ctrl-C or a SIGTERM (`by`) after finishing its step (and writing a
    checkpoint at that step, if the run has an `out` folder); `step` is the steps done, `path` the
    checkpoint (or None)."""

    def __init__(self, step: int, steps: int, path: Path | None, by: str = "Ctrl-C"):
        self.step, self.steps, self.path, self.by = step, steps, path, by
        saved = f"checkpoint written at step {step} to {path}" if path else "no out= folder, nothing saved"
        stopped = "interrupted" if by == "Ctrl-C" else f"stopped by {by}"
        super().__init__(f"{stopped} after step {step} of {steps}; {saved}")
