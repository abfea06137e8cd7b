"""The SHA-256 recorded beside each checkpoint (`checkpoint.pt.sha256`, in `sha256sum`'s format) and
checked on every load, so that a checkpoint whose bytes changed after minivit wrote them (a failing
disk, a bad copy, an edit) is refused instead of used."""

from __future__ import annotations

import hashlib
from pathlib import Path

from minivit.folders import unreadable
from minivit.runsafety import write_atomic

SUMS = ".sha256"  # beside checkpoint.pt: checkpoint.pt.sha256, in `sha256sum`'s format

__all__ = ["SUMS", "check_checksum", "checksum_file", "record_checksum", "recorded_checksums", "sha256_of"]


def checksum_file(path: str | Path) -> Path:
    """Where the SHA-256 of the checkpoint `path` is recorded: `path` + ".sha256"."""
    path = Path(path)
    return path.with_name(path.name + SUMS)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def recorded_checksums(path: Path) -> list[str] | None:
    """The checksums recorded for the checkpoint `path` (None: none recorded, e.g. a checkpoint
    copied without its .sha256 file, or written before checksums were). While a checkpoint is being
    replaced, the file lists the new one's and the old one's, so a kill at any moment leaves the
    checkpoint in place matching one of them. A checksum file that cannot be read, or holds no
    SHA-256 in `sha256sum`'s format, gives [] (`check_checksum` names it)."""
    try:
        text = checksum_file(path).read_text(errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        return []
    return [w[0] for w in (line.split() for line in text.splitlines()) if w and _is_sha256(w[0])]


def _is_sha256(word: str) -> bool:
    return len(word) == 64 and all(c in "0123456789abcdef" for c in word.lower())


def record_checksum(path: str | Path, *, also: list[str] | None = None) -> str:
    """Record the SHA-256 of the checkpoint `path` beside it (`sha256sum`'s format, so `sha256sum -c
    checkpoint.pt.sha256` checks it too), atomically; `also`: older checksums kept listed."""
    path = Path(path)
    digest = sha256_of(path)
    lines = [f"{d}  {path.name}\n" for d in dict.fromkeys([digest, *(also or [])])]
    write_atomic(checksum_file(path), lambda f: f.write("".join(lines).encode()))
    return digest


def check_checksum(path: Path) -> bool:
    """Raise a ValueError unless the checkpoint `path` matches a checksum recorded beside it, naming
    the culprit: the checkpoint whose bytes changed, or a checksum file that is damaged (empty, not
    `sha256sum`'s format) or unreadable. Return False if none is recorded (the checkpoint is then
    unverified: its caller says so), True if it matched."""
    sums, sums_file = recorded_checksums(path), checksum_file(path)
    if sums is None:
        return False
    if not sums:
        try:
            damage = (
                "is empty" if not sums_file.read_bytes().strip() else "holds no SHA-256 in sha256sum's format"
            )
        except OSError as err:
            raise ValueError(unreadable(sums_file, err, f"the checksum of {path.name}")) from None
        raise ValueError(
            f"the checksum file {sums_file} {damage}: it is damaged, not the checkpoint, which was not "
            f"checked; if {path.name} is the one minivit wrote, record its checksum again (sha256sum "
            f"{path.name} > {sums_file.name}), else resume from a copy of the run made before"
        )
    if sha256_of(path) in sums:
        return True
    raise ValueError(
        f"{path} does not match the checksum recorded beside it in {sums_file.name}: its bytes "
        "changed since minivit wrote them (a failing disk, a bad copy, an edit); resume from a copy of "
        "the run made before, or train again (if you changed it on purpose: sha256sum "
        f"{path.name} > {sums_file.name})"
    )
