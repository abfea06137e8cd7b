"""Checkpoint files: what a training run writes to `out/checkpoint.pt`, how it is written (atomically:
a kill mid-write leaves the previous file intact), how it is read back (safely, with a clear error for
a file that is empty, corrupt, foreign or of another format), and how a run resumes from one.

A run's checkpoint holds its config, weights, optimizer (and fp16 loss scaler), settings, step, batch
order and every RNG state, so a resumed run ends bit-for-bit where an uninterrupted one would (on a
CPU).
"""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from torch import nn

from minivit.checksums import (
    check_checksum,
    checksum_file,
    record_checksum,
    recorded_checksums,
    sha256_of,
)
from minivit.config import ViTConfig
from minivit.folders import CHECKPOINT, check_writable, unreadable
from minivit.runsafety import write_atomic

CHECKPOINT_FORMAT = 1  # raise when what a checkpoint holds changes; older files then get a clear error
RESUME_KEYS = ("optimizer", "settings", "step", "cursor", "order", "rng", "history")

__all__ = [
    "CHECKPOINT",
    "CHECKPOINT_FORMAT",
    "RESUME_KEYS",
    "OtherConfig",
    "check_config",
    "check_resumable",
    "check_writable",
    "checksum_file",
    "kept",
    "load_checkpoint",
    "load_model",
    "record_checksum",
    "restore",
    "resumable",
    "save_checkpoint",
    "training_state",
    "write_atomic",
]


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write `state` to `path` atomically (`write_atomic`), its SHA-256 recorded beside it
    (`checksum_file`) for `load_checkpoint` to check: the new checksum is recorded (beside the old
    one) before the rename and the old one dropped after it, so a kill between the two leaves a
    checkpoint that matches."""
    path = Path(path)
    before = recorded_checksums(path) or []
    done = []

    def record(tmp: Path) -> None:
        digest = sha256_of(tmp)
        lines = [f"{d}  {path.name}\n" for d in dict.fromkeys([digest, *before[:2]])]
        write_atomic(checksum_file(path), lambda f: f.write("".join(lines).encode()))
        done.append(digest)

    write_atomic(path, lambda f: torch.save(state, f), then=record)
    if before:
        write_atomic(checksum_file(path), lambda f: f.write(f"{done[0]}  {path.name}\n".encode()))


_unverified: set[tuple[Path, int]] = set()  # checkpoints loaded without a checksum, already said


def load_checkpoint(path: str | Path, model: nn.Module | None = None) -> dict[str, Any]:
    """Load a checkpoint (a file, or a run folder holding one) safely (`weights_only=True`).

    With `model`, check that it has the checkpoint's config (else a ValueError names the fields that
    differ) and load the weights into it.
    """
    path = Path(path)
    if path.is_dir() and (path.name != CHECKPOINT or (path / CHECKPOINT).exists()):
        path = path / CHECKPOINT
    if path.is_dir():
        raise ValueError(
            f"{path} is a folder, where a run keeps its checkpoint file; move that folder away (minivit "
            "did not make it), then train again, or name the checkpoint file itself"
        )
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}; train first (minivit train --out {path.parent})")
    if not path.is_file():  # a pipe would block the read for ever, a device feed it without end
        raise ValueError(
            f"{path} is not a file (a pipe or a device?); move it away, or name a checkpoint file"
        )
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except OSError as err:  # permissions, the disk: not the checkpoint's fault
        raise ValueError(unreadable(path, err, "a checkpoint")) from None
    except Exception as err:  # empty, truncated, corrupt, or not a torch file at all
        raise ValueError(
            f"{path} cannot be read as a checkpoint ({type(err).__name__}): it is empty, truncated, corrupt "
            "or not a minivit checkpoint; resume from another run folder or train again"
        ) from None
    if not check_checksum(path) and (path, path.stat().st_mtime_ns) not in _unverified:
        _unverified.add((path, path.stat().st_mtime_ns))  # said once a file, however often it is read
        print(
            f"minivit: warning: {path} has no {checksum_file(path).name} beside it: loaded unverified (a "
            "change to its bytes would go unseen); copy a checkpoint with its checksum file",
            file=sys.stderr,
        )
    needed = {"config", "model"} if model is not None else set()
    found = state.get("format", CHECKPOINT_FORMAT) if isinstance(state, dict) else None
    missing = sorted(needed - set(state)) if isinstance(state, dict) else sorted(needed)
    if found != CHECKPOINT_FORMAT or missing:
        raise ValueError(
            f"{path} is not a checkpoint this version of minivit reads (format {found!r}, "
            f"{'missing ' + ', '.join(missing) if missing else 'other format'}; this version writes "
            f"format {CHECKPOINT_FORMAT}); train again, or load it with the minivit version that wrote it"
        )
    if model is not None:
        check_config(path, state, getattr(model, "config", None))
        model.load_state_dict(state["model"])
    return state


class OtherConfig(ValueError):
    """A checkpoint trained with another config than the model's; `diff` maps each field that
    differs to (the checkpoint's value, the model's)."""

    def __init__(self, message: str, path: Path, diff: dict[str, tuple[Any, Any]]):
        super().__init__(message)
        self.path, self.diff = path, diff


def check_config(path: Path, state: dict[str, Any], config: ViTConfig | None) -> None:
    """Raise a ValueError naming the fields that differ if the checkpoint `state` (read from `path`)
    was trained with a config other than `config` (None: nothing to compare)."""
    if config is None or state.get("config") is None:
        return
    try:
        saved = ViTConfig.from_dict(state["config"])
    except (ValueError, TypeError, AttributeError) as err:
        raise ValueError(
            f"checkpoint {path} holds a config this version of minivit cannot read ({err}); "
            "train again, or load it with the minivit version that wrote it"
        ) from None
    diff = saved.differences(config)
    if diff:
        fields = "; ".join(f"{k}: checkpoint {a!r}, model {b!r}" for k, (a, b) in diff.items())
        raise OtherConfig(
            f"checkpoint {path} is from another config ({fields}); build the model with "
            "minivit.train.load_model(path) or ViTConfig.from_dict(checkpoint['config'])",
            path,
            diff,
        )


def load_model(path: str | Path) -> nn.Module:
    """The ViT saved in a checkpoint (file or run folder), built from its config, in eval mode."""
    from minivit.model import ViT

    state = load_checkpoint(path)
    if state.get("config") is None or "model" not in state:
        raise ValueError(
            f"{path} is not a checkpoint this version of minivit reads (it holds no config and model); "
            "train again, or load it with the minivit version that wrote it"
        )
    model = ViT(ViTConfig.from_dict(state["config"]))
    model.load_state_dict(state["model"])
    return model.eval()


def resumable(path: Path, config: ViTConfig | None, settings: Any) -> dict[str, Any] | None:
    """The checkpoint at `path` if a run with this `config` and `settings` (the dataclass of what a
    resumed run must share) can continue it; None if there is no checkpoint yet. A ValueError says
    why not otherwise (another config or settings, weights only, unreadable)."""
    if not path.exists():
        return None
    state = load_checkpoint(path)
    lacking = sorted(set(RESUME_KEYS) - set(state))
    if lacking:
        raise ValueError(
            f"cannot resume {path}: it holds no {', '.join(lacking)} (weights only?); use a new --out"
        )
    check_config(path, state, config)
    try:
        saved, now = asdict(type(settings)(**state["settings"])), asdict(settings)
    except TypeError:  # not a dict of the settings' fields
        raise ValueError(f"cannot resume {path}: its settings are damaged; use a new --out") from None
    if saved != now:
        diff = ", ".join(f"{k}: {v!r} then, {now[k]!r} now" for k, v in saved.items() if now[k] != v)
        raise ValueError(
            f"cannot resume {path}: it was trained with other settings ({diff}); "
            "pass the same settings, or a new --out folder"
        )
    return state


def check_resumable(
    path: Path,
    state: dict[str, Any],
    model: nn.Module,
    examples: int,
    optimizer: torch.optim.Optimizer | None = None,
) -> None:
    """Raise a ValueError that says what is wrong, before anything is restored, unless `state` (read
    from `path` by `resumable`) can continue training `model` (and `optimizer`) on a training set of
    `examples`: weights of this model's shapes and finite, the batch order of a set of this size,
    a step, history and random states in place. A damaged or foreign checkpoint, or a run.json
    edited to another training set, is refused here rather than trained on."""
    why = f"cannot resume {path}:"
    mine, theirs = model.state_dict(), state["model"]
    # every model of this shape holds these: not the trained grid a carried encoding keeps
    # (`reference_grid`, minivit.posenc.base), which a model built at the new size gets on loading
    _weights = lambda sd: {k for k in sd if k.rsplit(".", 1)[-1] != "reference_grid"}  # noqa: E731
    if not isinstance(theirs, dict) or _weights(theirs) != _weights(mine):
        other = sorted(_weights(theirs) ^ _weights(mine)) if isinstance(theirs, dict) else ["its model entry"]
        raise ValueError(
            f"{why} its weights are of another model (first difference: {other[0]}); use a new --out"
        )
    for name, value in theirs.items():
        if name not in mine:  # a carried encoding's trained grid: its own loader checks and keeps it
            continue
        if not isinstance(value, torch.Tensor) or value.shape != mine[name].shape:
            got = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ValueError(
                f"{why} its weight {name} is {got}, the model's is {tuple(mine[name].shape)}: another "
                "model's, or a damaged file; use a new --out"
            )
        if value.is_floating_point() and not torch.isfinite(value).all():
            raise ValueError(
                f"{why} its weight {name} holds NaN or inf values: the file is damaged; resume from a copy "
                "of the run made before, or start again in a new --out"
            )
    order, cursor, step = state["order"], state["cursor"], state["step"]
    if not isinstance(order, torch.Tensor) or order.dim() != 1 or len(order) != examples:
        size = len(order) if isinstance(order, torch.Tensor) and order.dim() == 1 else "an unknown number of"
        raise ValueError(
            f"{why} it was trained on {size} examples, this run has {examples} (another --train-size, or "
            "an edited run.json?); pass the run's own options, or a new --out"
        )
    if order.dtype != torch.long or not torch.equal(order.sort().values, torch.arange(examples)):
        raise ValueError(
            f"{why} its batch order is damaged (not a shuffle of the training set); use a new --out"
        )
    history, batch = state["history"], state["settings"].get("batch_size", 0)
    losses = history.get("loss") if isinstance(history, dict) else None
    # a batch larger than the set takes all of it every step: the cursor then stands at the batch size
    last = max(examples, batch if isinstance(batch, int) else 0)
    if not (isinstance(cursor, int) and 0 <= cursor <= last and isinstance(step, int) and step >= 0):
        raise ValueError(
            f"{why} its step ({step!r}) or batch position ({cursor!r}) is damaged; use a new --out"
        )
    if not isinstance(losses, list) or len(losses) != step:
        raise ValueError(
            f"{why} its history does not match its step {step}: the file is damaged; use a new --out"
        )
    rng = state["rng"]
    fresh = torch.Generator().get_state()
    for key in ("batches", "torch"):
        value = rng.get(key) if isinstance(rng, dict) else None
        if not isinstance(value, torch.Tensor) or value.dtype != fresh.dtype or value.shape != fresh.shape:
            raise ValueError(f"{why} its random state ({key}) is damaged; use a new --out")
    if optimizer is not None:
        _check_optimizer(why, state["optimizer"], optimizer)


def _check_optimizer(why: str, saved: Any, optimizer: torch.optim.Optimizer) -> None:
    groups = saved.get("param_groups") if isinstance(saved, dict) else None
    if not isinstance(groups, list) or [len(g.get("params", ())) for g in groups] != [
        len(g["params"]) for g in optimizer.param_groups
    ]:
        raise ValueError(f"{why} its optimizer state is of another model or optimizer; use a new --out")
    index = {i: p for g, mine in zip(groups, optimizer.param_groups, strict=True)
             for i, p in zip(g["params"], mine["params"], strict=True)}  # fmt: skip
    state = saved.get("state", {})
    for i, moments in state.items() if isinstance(state, dict) else [(None, None)]:
        tensors = moments.values() if isinstance(moments, dict) else [None]
        if i not in index or any(
            t is not None and (not isinstance(t, torch.Tensor) or 0 < t.dim() and t.shape != index[i].shape)
            for t in tensors
        ):
            raise ValueError(f"{why} its optimizer state is damaged or of another model; use a new --out")


def training_state(
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    settings: Any,
    step: int,
    batches: Any,
    device: torch.device,
    history: Any,
) -> dict[str, Any]:
    """Everything a resumed run needs to end bit-for-bit where this one would have: what `save`
    writes. `batches` holds the batch order (`order`, `cursor`, `generator`); `settings` and
    `history` are dataclasses."""
    return {
        "format": CHECKPOINT_FORMAT,
        "config": model.config.to_dict() if hasattr(model, "config") else None,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scaler": scaler.state_dict() if scaler.is_enabled() else None,
        "settings": asdict(settings),
        "step": step,
        "cursor": batches.cursor,
        "order": batches.order.cpu(),
        "rng": {
            "batches": batches.generator.get_state(),
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state() if device.type == "cuda" else None,
        },
        "history": asdict(history),
    }


def restore(
    state: dict[str, Any],
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    batches: Any,
    device: torch.device,
) -> None:
    """Put a run back where `state` (from `training_state`) left it: weights, optimizer, loss
    scaler, batch order and RNG states."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    if state.get("scaler"):
        scaler.load_state_dict(state["scaler"])
    batches.cursor, batches.order = state["cursor"], state["order"].to(device)
    batches.generator.set_state(state["rng"]["batches"])
    torch.set_rng_state(state["rng"]["torch"])
    if device.type == "cuda" and state["rng"].get("cuda") is not None:
        torch.cuda.set_rng_state(state["rng"]["cuda"])


def kept(path: Path | None) -> str:
    """ "the last good checkpoint (step N) is kept at PATH; " if `path` holds one, else ""."""
    if path is not None and path.exists():
        try:
            step = torch.load(path, map_location="cpu", weights_only=True)["step"]
        except Exception:  # a file this run did not write: say nothing about it
            return ""
        return f"the last good checkpoint (step {step}) is kept at {path}; "
    return ""
