"""A training run's options checked once, into a `Plan`, before the run starts.

`minivit train` makes its plan from its options and the task's shape before any data is made or
read and before any folder is written (`plan_run`), and hands it to `minivit.train.fit_plan`. `fit`
makes one from its keyword options, the model and the data it is given (`check_fit_options`, then
`plan_for`). Either way the run checks none of it again. The plan is made of `minivit.checks`'
primitives: the options' ranges (`minivit.fitchecks`), the device (`devices.pick_device`), the batch
split over processes (`devices.check_split`), the memory a step needs (`minivit.memory`) and the
augmentation's size. What only the data can tell (its shape, its labels, `eval_data`) and the run
folder are checked where they are given: `check_inputs` and `check_train`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import TensorDataset

from minivit import memory
from minivit.augment import Augment
from minivit.checks import check_folder, check_whole
from minivit.config import ViTConfig
from minivit.datachecks import check_task, check_train_set, is_regression
from minivit.devices import autocast_dtype, check_split, device_memory, host_memory, pick_device, world
from minivit.fitchecks import _Settings, check_fit_options
from minivit.model import count_parameters, encoding_of

SYNC_EVERY = 25  # `fit`'s default: loss and accuracy read from the device every 25 steps


@dataclass(frozen=True)
class Plan:
    """A run checked before it starts: what `fit` trains with, none of it checked again."""

    config: ViTConfig | None  # the model's (None: a model without a ViTConfig)
    settings: _Settings  # what a resumed run must share: steps, batch size, lr, seed and the rest
    augment: Augment | None
    device: torch.device
    precision: str
    compile: bool | str
    processes: int  # 1, or the processes under torchrun
    batch: int  # images each process takes per step
    evaluation_batch: int  # images per evaluation batch (0: no evaluation)
    parameters: int
    eval_every: int | None = None  # None: 10 times per run
    sync_every: int = SYNC_EVERY
    checkpoint_every: int | None = None  # None: 10 times per run


def plan_run(
    config: ViTConfig,
    *,
    examples: int,
    data_bytes: int,
    evaluated: int = 0,
    processes: int = 1,
    device: str | torch.device | None = None,
    names: Mapping[str, str] | None = None,
    sync_every: int = SYNC_EVERY,
    **options,
) -> Plan:
    """The plan of a run of a ViT with `config` on `examples` training images whose making takes
    `data_bytes`, with `evaluated` images evaluated at the end, over `processes` processes, made before
    the model is built or the data made; `options` are `fit`'s (steps, batch_size, lr, ...). Raises a
    ValueError naming the first option out of range, a batch that does not split over the processes
    or a run the machine (or its GPU) cannot hold; `names` spells the options the memory advice names
    as the user typed them (e.g. "--batch-size")."""
    settings = check_fit_options(sync_every=sync_every, **options)
    device = pick_device(device)
    check_split(settings.batch_size, processes)
    batch = min(settings.batch_size, examples) // processes  # a batch never holds more than the set
    evaluation = min(memory.EVAL_BATCH, evaluated)
    precision = options.get("precision", "auto")
    # the model is counted from its config, never built to be refused (100,000 blocks are refused at
    # once); its encoding alone is built, on the meta device, for its own checks (head width and such)
    check_memory(config, data_bytes, batch, evaluation, device, precision, names)
    augment = options.get("augment")
    if augment:
        augment.check_size(*config.image_size)
    parameters = count_parameters(config, encoding_of(config))
    return _plan(config, settings, augment, device, precision, processes, batch, evaluation, parameters,
                 options, sync_every)  # fmt: skip


def plan_for(
    model: nn.Module,
    train: TensorDataset,
    settings: _Settings,
    *,
    device: str | torch.device | None = None,
    eval_size: int = 0,
    processes: int = 1,
    **options,
) -> Plan:
    """The plan of training `model` on `train` (checked by `check_train`) over `processes` processes,
    `eval_size` images evaluated, with `fit`'s `options` (steps, batch_size, ..., checked into
    `settings` by `check_fit_options`): the augmentation's size, the device, the batch split and the
    memory a step of this model needs."""
    augment, precision = options.get("augment"), options.get("precision", "auto")
    if augment:
        augment.check_size(*train.tensors[0].shape[-2:])
    device = pick_device(device)
    check_split(settings.batch_size, processes)
    batch = min(settings.batch_size, len(train.tensors[0])) // processes
    evaluation = min(memory.EVAL_BATCH, eval_size)
    memory.check_training(
        model,
        train.tensors[: 3 if is_regression(train) else 2],
        batch_size=batch,
        optimizer=settings.optimizer,
        device=device,
        precision=precision,
        evaluation_batch=evaluation,
    )
    config = getattr(model, "config", None)
    parameters = sum(p.numel() for p in model.parameters())
    sync_every = options.get("sync_every", SYNC_EVERY)
    config = config if isinstance(config, ViTConfig) else None
    return _plan(config, settings, augment, device, precision, processes, batch, evaluation, parameters,
                 options, sync_every)  # fmt: skip


def check_inputs(
    model: nn.Module,
    train: TensorDataset,
    eval_data: TensorDataset | None,
    *,
    augment: Augment | None,
    label_smoothing: float,
    steps: int,
    stop_at: int | None,
    callback: Callable | None,
    out: str | Path | None,
    resume: bool,
) -> Path | None:
    """Raise a ValueError for `fit`'s arguments that come with the data: an `eval_data` the model
    cannot take or of another kind than `train`, augmentation or label smoothing for a regression,
    `stop_at` past the run, a callback that is not a function, `resume` without `out`; return `out`
    as a Path (checked to name a folder)."""
    if eval_data is not None:
        check_task(model, eval_data, "eval_data")
        check_train_set(eval_data, getattr(getattr(model, "config", None), "num_classes", None), "eval_data")
        if is_regression(eval_data) != is_regression(train):
            raise ValueError(
                "eval_data and train must be the same kind: both classification or both regression"
            )
    if is_regression(train) and (augment or label_smoothing):
        raise ValueError(
            "augment and label_smoothing are for classifying images; leave them out for a masked-token "
            "regression"
        )
    if stop_at is not None:
        check_whole("stop_at", stop_at, 1, steps)
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} is not a function; pass callback(step, model, history)")
    if out is not None:
        return check_folder("out", out)
    if resume:
        raise ValueError("resume=True continues the checkpoint in a run folder; pass out= with it")
    return None


def check_train(model: nn.Module, train: TensorDataset, plan: Plan | None = None) -> None:
    """Raise a ValueError if `model` cannot train on `train`, or (given the `plan` it is to train
    with) was not the model the plan was made for or runs over another number of processes."""
    check_task(model, train)
    check_train_set(train, int(getattr(getattr(model, "config", None), "num_classes", 0)) or None)
    if plan is None:
        return
    config = getattr(model, "config", None)
    if plan.config is not None and config != plan.config:
        raise ValueError(
            "the model is not the one the plan was made for (its config differs); make the plan "
            "from this model's config"
        )
    if world()[1] != plan.processes:
        raise ValueError(
            f"the plan was made for {plan.processes} process(es), this run has {world()[1]}; make the "
            "plan under the same torchrun"
        )


def check_memory(
    config: ViTConfig,
    data_bytes: int,
    batch_size: int,
    evaluation_batch: int,
    device: torch.device,
    precision: str,
    names: Mapping[str, str] | None = None,
) -> None:
    """Refuse a run whose data, model and step need more memory than this machine (or its GPU) has
    (first without the encoding's parameters, so a run too large for its blocks alone is refused
    before even its encoding is built)."""
    for encoding in (False, True):
        est = memory.estimate(
            config,
            batch_size=batch_size,
            autocast=autocast_dtype(device, precision) is not None,
            device_type=device.type,
            data_bytes=data_bytes,
            evaluation_batch=evaluation_batch,
            encoding=encoding,
        )
        if device.type != "cuda":
            memory.check(est, host_memory(), where="this machine", names=names)
            continue
        host = memory.Estimate(data_bytes, 0, 0, batch_size, {"data": data_bytes})
        memory.check(host, host_memory(), where="this machine", names=names)
        on_gpu = data_bytes // 2  # the training set (about half of what making the data takes) moves there
        est.fixed -= data_bytes - on_gpu
        est.parts["data"] = on_gpu
        memory.check(est, device_memory(device), where=f"the GPU ({device})", names=names)


def _plan(config, settings, augment, device, precision, processes, batch, evaluation, parameters, options,
          sync_every) -> Plan:  # fmt: skip
    """The `Plan` of what `plan_run` and `plan_for` checked, with the options that need no check."""
    return Plan(config, settings, augment, device, precision, options.get("compile", False), processes,
                batch, evaluation, parameters, options.get("eval_every"), sync_every,
                options.get("checkpoint_every"))  # fmt: skip
