"""Checkpoint files: what a training run writes to `out/checkpoint.pt`, how it is written (atomically:
a kill mid-write leaves the previous file intact), how it is read back (safely, with a clear error for
a file that is empty, corrupt, foreign or of another format), and how a run resumes from one.

A run's checkpoint holds its config, weights, optimizer (and fp16 loss scaler), settings, step, batch
order and every RNG state, so a resumed run ends bit-for-bit where an uninterrupted one would (on a
CPU).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, BinaryIO

import torch
from torch import nn

from minivit.config import ViTConfig
from minivit.runsafety import save_failed

CHECKPOINT = "checkpoint.pt"
CHECKPOINT_FORMAT = 1  # raise when what a checkpoint holds changes; older files then get a clear error
RESUME_KEYS = ("optimizer", "settings", "step", "cursor", "order", "rng", "history")


def write_atomic(path: str | Path, write: Callable[[BinaryIO], object]) -> None:
    """Write a file through a temporary file in the same folder and a rename, so a crash or a kill
    mid-write leaves the previous file intact, never half of a new one. A write that fails (a full
    disk) raises SaveFailed, with the temporary file removed and the previous file intact."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by runs killed mid-write
            stale.unlink(missing_ok=True)
    except OSError as err:
        raise save_failed(path, err) from None
    finally:
        tmp.unlink(missing_ok=True)


def check_writable(out: Path, *, model_bytes: int, name: str = "--out") -> None:
    """Raise a ValueError before training if the run folder `out` (the argument `name`) cannot be
    created or written, or its disk lacks room for a checkpoint of `model_bytes` (written beside the
    old one, then renamed: twice its size)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_bytes(b"minivit")
        probe.unlink()
    except OSError as err:
        raise ValueError(
            f"cannot write to {name} {out}: {err.strerror or err}; choose a folder you can write to"
        ) from None
    free = shutil.disk_usage(out).free
    if free < 2 * model_bytes:
        raise ValueError(
            f"{name} {out} has {free / 1e6:.1f} MB free, less than the {2 * model_bytes / 1e6:.1f} MB two "
            "checkpoints of this model need; free some space or choose another folder"
        )


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write `state` to `path` atomically (`write_atomic`)."""
    write_atomic(path, lambda f: torch.save(state, f))


def load_checkpoint(path: str | Path, model: nn.Module | None = None) -> dict[str, Any]:
    """Load a checkpoint (a file, or a run folder holding one) safely (`weights_only=True`).

    With `model`, check that it has the checkpoint's config (else a ValueError names the fields that
    differ) and load the weights into it.
    """
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}; train first (minivit train --out {path.parent})")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # empty, truncated, corrupt, or not a torch file at all
        raise ValueError(
            f"{path} cannot be read as a checkpoint ({type(err).__name__}): it is empty, truncated, corrupt "
            "or not a minivit checkpoint; resume from another run folder or train again"
        ) from None
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
        raise ValueError(
            f"checkpoint {path} is from another config ({fields}); build the model with "
            "minivit.train.load_model(path) or ViTConfig.from_dict(checkpoint['config'])"
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
    if not isinstance(theirs, dict) or set(theirs) != set(mine):
        other = sorted(set(theirs) ^ set(mine)) if isinstance(theirs, dict) else ["its model entry"]
        raise ValueError(
            f"{why} its weights are of another model (first difference: {other[0]}); use a new --out"
        )
    for name, value in theirs.items():
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
    history = state["history"]
    losses = history.get("loss") if isinstance(history, dict) else None
    if not (isinstance(cursor, int) and 0 <= cursor <= examples and isinstance(step, int) and step >= 0):
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
