"""fit_ensemble: train K models of the same shape at once, as one batched model.

The K models' weights are stacked (`torch.func.stack_module_state`) and one forward and backward
(`torch.func.vmap` over `functional_call`) trains them all: different seeds, different
initialisations (the sigma of a learned table), each with its own batch order, augmentation draws
and, if given one each, its own training set. A small model leaves a GPU idle between its kernels
and a CPU busy with per-operation overhead; K of them in one step fill both.

Each member follows the run `fit` would give it (same initial weights, same `seed`, same options):
AdamW and SGD act on each weight on its own, so stacking changes nothing there; gradient clipping is
done per member; the loss of the ensemble is the sum of the members' losses, so each member's
gradient is its own. What differs is the order of floating-point sums in batched matrix products,
and attention written out instead of the fused kernel (`Attention.fused`), so members match their
single runs to float32 rounding at first, and stay close while training is stable.

`compile=True` compiles the batched forward and backward (on a 2-core CPU, the Latin-square model
at width 32 and batch 128: about 40 s once, then a step about 1.4x faster, so it pays from about a
thousand steps on).

Not here (use `fit`): checkpoints and resume, torchrun, fp16 loss scaling (on a GPU without bf16,
"auto" trains the ensemble in fp32).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap
from torch.utils.data import TensorDataset

from minivit import memory, nulls
from minivit.attention import Attention
from minivit.augment import Augment
from minivit.batches import _Batches, augment_seed
from minivit.checks import check_whole
from minivit.datachecks import check_train_set, is_regression
from minivit.devices import autocast_dtype, pick_device
from minivit.evaluate import evaluate
from minivit.fitchecks import MAX_SEED, _Settings, check_fit_options
from minivit.nulls import NoiseGradients
from minivit.progress import History, _Meter, _progress
from minivit.schedule import lr_at
from minivit.step import _optimizer


def fit_ensemble(
    models: Sequence[nn.Module],
    train: TensorDataset | Sequence[TensorDataset],
    *,
    seeds: Sequence[int],
    steps: int = 500,
    batch_size: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 0.05,
    warmup: int | None = None,
    schedule: str = "cosine",
    label_smoothing: float = 0.0,
    grad_clip: float | None = 1.0,
    optimizer: str = "adamw",
    position_lr_scale: float = 1.0,
    augment: Augment | None = None,
    precision: str = "auto",
    eval_data: TensorDataset | Sequence[TensorDataset] | None = None,
    eval_every: int | None = None,
    sync_every: int = 25,
    compile: bool | str = False,
    device: str | torch.device | None = None,
    progress: bool = True,
    desc: str | None = None,
    callback: Callable[[int, list[nn.Module], list[History]], None] | None = None,
) -> list[History]:
    """Train every model in `models` (the same architecture; any weights) at once, member k with the
    batch order and augmentation draws of `seeds[k]`, and return their Histories. The trained weights
    are written back into `models`. `train` (and `eval_data`) is one dataset for all members or one
    per member (each of the same size and image shape). Options as in `minivit.train.fit`; `compile`
    compiles the K models' batched forward (and with it the backward). `callback(step, models,
    histories)` is called every `eval_every` steps and at the end, with the members' weights written
    back into `models` (unlike `fit`'s, not every step: writing them back is a copy)."""
    settings = check_fit_options(
        steps=steps,
        batch_size=batch_size,
        lr=lr,
        weight_decay=weight_decay,
        warmup=warmup,
        schedule=schedule,
        label_smoothing=label_smoothing,
        grad_clip=grad_clip,
        optimizer=optimizer,
        position_lr_scale=position_lr_scale,
        precision=precision,
        eval_every=eval_every,
        sync_every=sync_every,
        compile=compile,
    )
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} is not a function; pass callback(step, models, histories)")
    models = list(models)
    if not models:
        raise ValueError("fit_ensemble needs at least one model; pass [ViT(config) for _ in range(K)]")
    first = {}
    for k, model in enumerate(models):
        if id(model) in first:  # `[ViT(config)] * K`: one model K times, each member overwriting it
            raise ValueError(
                f"models {first[id(model)]} and {k} are one and the same model object, so one member's "
                "trained weights would overwrite the other's; build a model per member: "
                "[ViT(config) for _ in range(K)], not [ViT(config)] * K"
            )
        first[id(model)] = k
    for seed in seeds:
        check_whole("seeds", seed, 0, MAX_SEED)
    trains = _per_member(train, len(models), "train")
    if is_regression(trains[0]):
        raise ValueError(
            "fit_ensemble trains classifiers; train a masked-token regression (targets [B, N]) with fit"
        )
    config = getattr(models[0], "config", None) if models else None
    classes = int(getattr(config, "num_classes", 0)) or None
    if models:  # (an empty list is named by _Stack)
        check_train_set(trains[0], classes)
        memory.check_training(
            models[0],
            trains[0].tensors[:2],
            batch_size=min(batch_size, len(trains[0].tensors[0])),
            optimizer=optimizer,
            device=pick_device(device),
            precision=precision,
            members=len(models),
        )
    stack = _Stack(models, seeds, settings, device, precision, compile)
    data = _Data(trains, seeds, batch_size, augment, classes, stack.device)
    evals = _per_member(eval_data, len(models), "eval_data") if eval_data is not None else []
    histories = [History() for _ in models]
    names = [f"member {k} (seed {s})" for k, s in enumerate(seeds)]
    meter = _Meter(histories, 1, None, f"lower the learning rate (lr={lr})", names)
    eval_every = eval_every or max(1, steps // 10)
    bar = _progress(0, steps, desc or f"{len(models)} models", enabled=progress)
    try:
        for step in range(steps):
            meter.add(step, *stack.step(step, *data.batch(step)))
            done = step + 1
            evaluating = (bool(evals) or callback is not None) and (done % eval_every == 0 or done == steps)
            if evaluating or done % sync_every == 0 or done == steps:
                meter.flush()
                bar.update(done - bar.n)
                bar.set_postfix(meter.summary(), refresh=False)
            if evaluating:
                stack.write_back()
                for model, history, ds in zip(models, histories, evals, strict=True) if evals else ():
                    history.eval_step.append(done)
                    history.eval_accuracy.append(evaluate(model, ds))
                if callback is not None:
                    callback(done, models, histories)
    finally:
        bar.close()
    stack.write_back()
    return histories


def _per_member(data: TensorDataset | Sequence[TensorDataset], k: int, name: str) -> list[TensorDataset]:
    """One dataset per member: `data` K times over, or `data` itself if it is K datasets."""
    if isinstance(data, TensorDataset):
        return [data] * k
    data = list(data)
    if len(data) != k:
        raise ValueError(f"{name} holds {len(data)} datasets for {k} models; pass one, or one per model")
    return data


class _Data:
    """Each member's training set, batch order and augmentation; `batch` gives the step's images
    [K, B, C, H, W], targets and labels [K, B], member k's drawn as its own `fit` run draws them."""

    def __init__(
        self,
        trains: list[TensorDataset],
        seeds: Sequence[int],
        batch_size: int,
        augment: Augment | None,
        classes: int | None,
        device: torch.device,
    ):
        for ds in trains:
            check_train_set(ds, classes)
        if nulls.kind() == "labels":  # a null run: each member's labels shuffled as its own fit would
            trains = [nulls.training_set(ds, seed) for ds, seed in zip(trains, seeds, strict=True)]
        for k, ds in enumerate(trains):
            if ds.tensors[0].shape != trains[0].tensors[0].shape:
                raise ValueError(
                    f"member {k}'s training images are {tuple(ds.tensors[0].shape)} and member 0's "
                    f"{tuple(trains[0].tensors[0].shape)}; an ensemble needs training sets of one size"
                )
        if augment:
            augment.check_size(*trains[0].tensors[0].shape[-2:])
        if all(ds is trains[0] for ds in trains):  # one set for all: a view, not K copies
            self.images, self.labels = (
                t.to(device).expand(len(trains), *t.shape) for t in trains[0].tensors[:2]
            )
        else:
            self.images, self.labels = (
                torch.stack([ds.tensors[i] for ds in trains]).to(device) for i in (0, 1)
            )
        self.members = torch.arange(len(trains), device=device)[:, None]
        self.batches = [_Batches(self.images.shape[1], batch_size, s, device, 0, 1) for s in seeds]
        self.seeds, self.augment = list(seeds), augment
        self.classes = classes or int(self.labels.max()) + 1
        self.rng = torch.Generator(device=device)

    def batch(self, step: int) -> tuple[Tensor, Tensor, Tensor]:
        idx = torch.stack([b.next() for b in self.batches])  # (K, B)
        x, y = self.images[self.members, idx], self.labels[self.members, idx]
        if not self.augment:
            return x, y, y
        out = []
        for k, seed in enumerate(self.seeds):
            self.rng.manual_seed(augment_seed(seed, 0, step))
            out.append(self.augment(x[k], y[k], self.classes, self.rng))
        x, target = (torch.stack(t) for t in zip(*out, strict=True))
        return x, target, target.argmax(-1)


class _Stack:
    """K models as one: stacked weights [K, ...] and a forward that maps over them."""

    def __init__(
        self,
        models: Sequence[nn.Module],
        seeds: Sequence[int],
        settings: _Settings,
        device: str | torch.device | None,
        precision: str,
        compile: bool | str,
    ):
        if len(models) < 1 or len(models) != len(seeds):
            raise ValueError(
                f"fit_ensemble needs one seed per model: got {len(models)} models and {len(seeds)} seeds"
            )
        shapes = [{k: tuple(v.shape) for k, v in m.state_dict().items()} for m in models]
        for k, shape in enumerate(shapes[1:], 1):
            if shape != shapes[0]:
                diff = sorted(set(shape.items()) ^ set(shapes[0].items()))[:3]
                raise ValueError(
                    f"model {k} does not have the shape of model 0 (first differences: {diff}); "
                    "an ensemble trains models of one architecture: train the others with fit"
                )
        self.device = pick_device(device)
        self.models = [m.to(self.device).train() for m in models]
        self.base = copy.deepcopy(self.models[0])
        for module in self.base.modules():
            if isinstance(module, Attention):
                module.fused = False
        params, buffers = stack_module_state(self.models)
        self.params = {k: nn.Parameter(v) for k, v in params.items()}
        self.buffers = buffers

        def one(params: dict, buffers: dict, x: Tensor) -> Tensor:
            return functional_call(self.base, (params, buffers), (x,))

        self.forward = vmap(one, randomness="different")
        if compile:
            self.forward = torch.compile(self.forward, mode=None if compile is True else compile)
        self.graphs = compile == "reduce-overhead" and self.device.type == "cuda"
        self.settings, self.opt = settings, _optimizer(self.models[0], settings, self.params)
        self.noise = NoiseGradients(seeds[0], self.device, members=len(models))  # MINIVIT_NULL=noise
        dtype = autocast_dtype(self.device, precision)
        if dtype == torch.float16:
            if precision == "fp16":
                raise ValueError("fit_ensemble has no fp16 loss scaling; use precision='bf16' or 'fp32'")
            dtype = None  # "auto" on a GPU without bf16
        self.autocast = torch.autocast(
            self.device.type, dtype=dtype or torch.float32, enabled=dtype is not None
        )

    def step(self, step: int, x: Tensor, target: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        """One optimizer step of every member; each member's loss and batch accuracy [K] (on the
        device). The loss is the sum of the members' mean losses, so each gets its own gradient."""
        s = self.settings
        rate = lr_at(step, steps=s.steps, lr=s.lr, warmup=s.warmup, schedule=s.schedule)
        for group in self.opt.param_groups:
            group["lr"] = rate * group.get("lr_scale", 1.0)
        with self.autocast:
            logits = self(x)  # (K, B, classes)
        losses = F.cross_entropy(
            logits.flatten(0, 1).float(),
            target.flatten(0, 1),
            label_smoothing=s.label_smoothing,
            reduction="none",
        )
        loss = losses.view(len(x), -1).mean(1)
        self.opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        self.noise(self.params.values())
        if s.grad_clip:
            self.clip(s.grad_clip)
        self.opt.step()
        return loss, (logits.argmax(-1) == y).float().mean(1)

    def __call__(self, images: Tensor) -> Tensor:
        """images [K, B, C, H, W] -> logits [K, B, classes], member k on images[k]."""
        if self.graphs:
            torch.compiler.cudagraph_mark_step_begin()
        return self.forward(self.params, self.buffers, images)

    @torch.no_grad()
    def clip(self, max_norm: float) -> None:
        """Each member's gradients scaled to a total norm of at most `max_norm`, as
        `nn.utils.clip_grad_norm_` does for one model."""
        grads = [p.grad for p in self.params.values() if p.grad is not None]
        norms = torch.stack([g.flatten(1).float().pow(2).sum(1) for g in grads]).sum(0).sqrt()  # (K,)
        scale = (max_norm / (norms + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(scale.view(-1, *[1] * (g.dim() - 1)).to(g.dtype))

    @torch.no_grad()
    def write_back(self) -> None:
        """Copy the stacked weights into the K models."""
        for name, p in self.params.items():
            for k, model in enumerate(self.models):
                model.get_parameter(name).copy_(p[k])
