"""Position without a grid: does a learned table find which tokens belong together? (lesson 10)

In the spirit of Ito et al.'s network experiment (arXiv 2406.08272, v3 on), built on the network
model of Ito et al. (2017): the tokens are the nodes of a simulated modular network
(`minivit.data.network`), in a shuffled order, so that a token's index says nothing about its module.
Each token carries its node's last values; some nodes are masked and their next value predicted.
Which nodes move together is something only the position encoding can tell the model, and no fixed
formula can write it down: the course's question is whether a learned table finds it, and how that
depends on the table's initial scale sigma. The sizes and parameters are the course's own, not the
paper's.

    python -m minivit.experiments.network --seeds 5 --out network.json   # the recorded sweep, anew

Arms: learned tables drawn N(0, sigma^2) at each sigma; a 1-D sinusoid over the shuffled index (a
fixed encoding that knows nothing of the modules); no encoding; and a fixed one-hot code of each
node's module, the upper bound. Each seed draws its own network and trains every arm on it.

Measures: the masked nodes' error as a fraction of their variance on the training steps, on later
steps of the same run, and on a second run of the same network with fresh noise; and how well the
table recovers the modules (`minivit.analysis.module_recovery`: within - between similarity, the
adjusted Rand index of k-means, the rank correlation with the connections, each against a
permutation null), of the whole table; and within - between of what training added to it
(Δ = end - start, `grouping`; for a recorded run, `update` draws its start again).

The output file is written after every run and a re-run skips the runs it already holds, so a sweep
can be stopped and continued (with the same settings).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit import analysis
from minivit.analysis.nulls import with_nulls
from minivit.config import ViTConfig
from minivit.data.network import Network, NetworkTask, network_task, simulate_network
from minivit.evaluate import unexplained
from minivit.experiments import check_options, command_line, provenance, resumable, write_result
from minivit.experiments.network_records import MEASURES, network_record, summarize  # noqa: F401 (handed on)
from minivit.model import ViT
from minivit.posenc.learned import Learned
from minivit.train import History, fit, pick_device, seed_everything

SIGMAS = (0.02, 0.1, 0.5, 1.0, 2.0)
SINUSOID, NONE, MODULES = "sincos1d", "none", "modules"
FIXED = (SINUSOID, NONE, MODULES)
SPLITS = ("train", "later", "rerun")


@dataclass(frozen=True)
class Setting:
    """The network, the task and the training of one sweep (the course's own sizes)."""

    modules: int = 4
    nodes_per_module: int = 8
    gain: float = 1.0
    run_steps: int = 4000  # the network's run: training on the first `train_steps`, later steps held out
    train_steps: int = 3000
    rerun_steps: int = 1000  # a second run of the same network with fresh noise, held out
    window: int = 4
    mask_fraction: float = 0.15
    dim: int = 32
    depth: int = 2
    heads: int = 1
    steps: int = 2000
    batch_size: int = 64
    lr: float = 1e-3

    @property
    def nodes(self) -> int:
        return self.modules * self.nodes_per_module

    def config(self, arm: str) -> ViTConfig:
        """The model of one arm: a row of N tokens, one output per token."""
        if arm == NONE or arm == SINUSOID:
            position, options = arm, {}
        elif arm == MODULES:
            position, options = "learned", {"init": "zeros"}  # the code is written in by `build`
        else:
            position, options = "learned", {"init": "normal", "std": float(arm)}
        return ViTConfig(
            image_size=(1, self.nodes),
            patch_size=1,
            in_channels=self.window + 1,
            num_classes=1,
            dim=self.dim,
            depth=self.depth,
            heads=self.heads,
            pool="tokens",
            position=position,
            position_options=options,
        )


SETTINGS = {
    # about 15 s a run on 2 CPU cores
    "cpu": Setting(),
    # the live runs of lesson 10: a shorter run of the network and of training
    "lesson": Setting(run_steps=2500, train_steps=2000, rerun_steps=500, steps=800, lr=2e-3),
}


def arms(sigmas: tuple[float, ...] = SIGMAS) -> list[str]:
    return [str(float(s)) for s in sigmas] + list(FIXED)


def label(arm: str) -> str:
    return {SINUSOID: "1-D sinusoid", NONE: "no encoding", MODULES: "module code"}.get(arm, f"σ = {arm}")


@dataclass
class Data:
    """One seed's network and its three data sets."""

    network: Network
    train: NetworkTask
    later: NetworkTask
    rerun: NetworkTask

    def splits(self) -> dict[str, NetworkTask]:
        return {"train": self.train, "later": self.later, "rerun": self.rerun}


def make_data(setting: Setting, seed: int) -> Data:
    """The network of `seed`, its first `train_steps` steps for training, the rest of the run, and a
    second run with fresh noise (each with masks of its own)."""
    net = simulate_network(
        setting.modules, setting.nodes_per_module, steps=setting.run_steps, gain=setting.gain, seed=seed
    )
    task = {"window": setting.window, "mask_fraction": setting.mask_fraction}
    again = net.rerun(setting.rerun_steps, seed=net.settings["noise_seed"] + 1)
    return Data(
        network=net,
        train=network_task(net, stop=setting.train_steps, seed=seed, **task),
        later=network_task(net, start=setting.train_steps, seed=seed + 1, **task),
        rerun=network_task(again, seed=seed + 2, **task),
    )


def build(setting: Setting, arm: str, seed: int, network: Network) -> ViT:
    """The untrained model of one arm; for the module code, its table is each node's module as a
    one-hot vector, fixed (not trained)."""
    seed_everything(seed)
    model = ViT(setting.config(arm))
    if arm == MODULES:
        with torch.no_grad():
            model.pos.table[0] = F.one_hot(network.modules, setting.dim).float()
        model.pos.table.requires_grad_(False)
    return model


def table(model: ViT) -> Tensor | None:
    """The position vectors [N, D] a model adds to its tokens (None without an encoding)."""
    if isinstance(model.pos, Learned):
        return model.pos.table[0].detach().float().cpu().clone()
    if model.config.position == SINUSOID:
        return model.pos.table(model.config.grid).float().cpu().clone()
    return None


def grouping(table: Tensor, modules: Tensor, *, permutations: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Within − between of a table [N, D] against its permutation null (the modules shuffled among the
    tokens, the same shuffles as `analysis.module_recovery` with this seed): {"within_between",
    "within_between_null": [mean, 95th percentile], "within_between_p"}. The quick part of
    `module_recovery`, for the many tables of a sweep."""
    sim = analysis.cosine_similarity(table).double()
    modules = torch.as_tensor(modules).long()
    measure = {"within_between": lambda order: analysis.within_between(sim, modules[order])}
    return with_nulls(measure, len(modules), permutations, seed)


def start_table(setting: Setting, run: dict[str, Any]) -> Tensor:
    """The table a recorded run of a learned arm started from, drawn again: `train_one` seeds with
    the run's seed, then builds the model, so the same seed and setting give the same draw. Check it
    against the record before trusting it (`update` does)."""
    arm = run["arm"]
    if arm in FIXED:
        raise ValueError(
            f"arm {arm!r} has no drawn table: give a run of a learned arm (one of {arms()[: len(SIGMAS)]})"
        )
    return table(build(setting, arm, run["seed"], None))


def update(setting: Setting, run: dict[str, Any]) -> Tensor:
    """What training added to a recorded run's table, Δ = end − start [N, D], the start drawn again
    (`start_table`) and checked: the rms of Δ must be the run's recorded `moved_rms` (its end table is
    recorded to 4 decimals)."""
    delta = torch.tensor(run["table"], dtype=torch.float32) - start_table(setting, run)
    moved = delta.pow(2).mean().sqrt().item()
    if abs(moved - run["moved_rms"]) > 1e-4:
        raise ValueError(
            f"arm {run['arm']}, seed {run['seed']}: the start drawn again is not the run's own "
            f"(Δ rms {moved:.5f}, recorded {run['moved_rms']:.5f}); the model's initialisation changed "
            "since the sweep was recorded: record it again (python -m minivit.experiments.network --seeds 5)"
        )
    return delta


def train_one(
    arm: str,
    seed: int,
    setting: Setting,
    data: Data,
    *,
    device: str | torch.device | None = None,
    progress: bool = True,
    every: int | None = None,
    permutations: int = 1000,
    position_lr_scale: float = 1.0,
) -> tuple[ViT, dict[str, Any]]:
    """Train one arm on one seed's data; return the model and its record ("recovery": of the whole
    table; "update_recovery": within - between of what training added to it, `grouping`). With
    `every`, the record also holds the table every `every` steps ("snapshots": {step: table}, from step 0);
    `position_lr_scale` trains the table at that multiple of the learning rate."""
    model = build(setting, arm, seed, data.network)
    start = table(model)
    snapshots: dict[int, list] = {}

    def keep(step: int, m: ViT, history: History) -> None:
        if step % every == 0:
            snapshots[step] = table(m).tolist()

    if every and start is not None:
        snapshots[0] = start.tolist()
    t0 = time.perf_counter()
    history = fit(
        model,
        data.train,
        steps=setting.steps,
        batch_size=setting.batch_size,
        lr=setting.lr,
        weight_decay=0.0,
        position_lr_scale=position_lr_scale,
        seed=seed,
        device=device,
        progress=progress,
        desc=f"{label(arm)}, seed {seed}",
        callback=keep if every and start is not None else None,
    )
    seconds = time.perf_counter() - t0
    model.cpu().eval()
    record: dict[str, Any] = {
        "arm": arm,
        "seed": seed,
        "seconds": round(seconds, 1),
        "final_loss": history.loss[-1],
        "unexplained": {name: unexplained(model, ds) for name, ds in data.splits().items()},
    }
    if position_lr_scale != 1.0:
        record["position_lr_scale"] = position_lr_scale
    end = table(model)
    if end is not None:
        net = data.network
        record["moved_rms"] = (end - start).pow(2).mean().sqrt().item()
        record["recovery_at_start"] = analysis.within_between(analysis.cosine_similarity(start), net.modules)
        record["recovery"] = analysis.module_recovery(
            end, net.modules, net.weights, permutations=permutations, seed=seed
        )
        if arm != MODULES:  # what training added (Δ = end − start), the draw left out
            record["update_recovery"] = grouping(
                end - start, net.modules, permutations=permutations, seed=seed
            )
        record["table"] = [[round(v, 4) for v in row] for row in end.tolist()]
    if snapshots:
        record["snapshots"] = snapshots
    return model, record


def sweep(
    setting: Setting,
    *,
    seeds: list[int],
    sigmas: tuple[float, ...] = SIGMAS,
    out: str | Path | None = None,
    head: dict[str, Any] | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
    permutations: int = 1000,
) -> dict[str, Any]:
    """Every arm on every seed. With `out`, the result is written after each run, and runs already
    in `out` (with the same setting) are kept, not run again."""
    result: dict[str, Any] = {**(head or {}), "setting": asdict(setting), "networks": {}, "runs": []}
    before = resumable(out, setting)
    if before is not None:
        result["networks"], result["runs"] = before["networks"], before["runs"]
        result["seconds"] = before.get("seconds", 0)
        if "provenance" in before and "provenance" in result:
            result["earlier"] = before.get("earlier", []) + [before["provenance"]]
    done = {(r["arm"], r["seed"]) for r in result["runs"]}
    t0 = time.perf_counter()
    for seed in seeds:
        todo = [a for a in arms(sigmas) if (a, seed) not in done]
        if not todo:
            continue
        data = make_data(setting, seed)
        result["networks"][str(seed)] = network_record(data.network)
        for arm in todo:
            _, record = train_one(
                arm, seed, setting, data, device=device, progress=progress, permutations=permutations
            )
            result["runs"].append(record)
            result["summary"] = summarize(result["runs"])
            if out is not None:
                result["seconds"] = round(result.get("seconds", 0) + time.perf_counter() - t0, 1)
                t0 = time.perf_counter()
                write_result(result, out)
    result["summary"] = summarize(result["runs"])
    return result


DEFAULT_OUT = "network.json"  # in the current folder, never the recorded result unless --out names it


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m minivit.experiments.network",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--setting", choices=sorted(SETTINGS), default="cpu")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 (each its own network)")
    ap.add_argument("--sigmas", type=float, nargs="+", default=list(SIGMAS))
    ap.add_argument("--steps", type=int, help="override the setting's training steps")
    ap.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=f"the result; runs it already holds are skipped (default: {DEFAULT_OUT} in the current "
        "folder; the recorded result changes only when named here)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    check_options(ap, args)  # before anything is trained or written
    torch.set_num_threads(args.threads)
    setting = SETTINGS[args.setting]
    if args.steps is not None:
        setting = replace(setting, steps=args.steps)
    device = pick_device(args.device)
    head = {
        "provenance": provenance("minivit.experiments.network", argv, device),
        "setting_name": args.setting,
    }
    try:
        before = resumable(args.out, setting)
    except ValueError as err:
        ap.error(str(err))
    result = sweep(
        setting,
        seeds=list(range(args.seeds)),
        sigmas=tuple(args.sigmas),
        out=args.out,
        head=head,
        device=device,
        progress=not args.quiet,
    )
    trained = len(result["runs"]) - len(before["runs"] if before else [])
    print(f"wrote {args.out}" if trained else f"{args.out} already holds every run asked for; nothing to run")
    for arm, s in result["summary"].items():
        line = (
            f"{label(arm):>14}: unexplained train {s['unexplained_train']:.3f}  "
            f"later {s['unexplained_later']:.3f}  rerun {s['unexplained_rerun']:.3f}"
        )
        if "ari" in s:
            line += (
                f"  within-between {s['within_between']:.3f} (null {s['within_between_null']:.3f})"
                f"  ARI {s['ari']:.2f}  connectivity {s['connectivity']:.2f}"
                f"  above null {s['within_between_above_null']}/{s['seeds']}"
            )
        print(line)


if __name__ == "__main__":
    sys.exit(command_line(main, "python -m minivit.experiments.network"))
