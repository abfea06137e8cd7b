"""The settings of the σ sweep: model size, training length and data; the named settings, and the
published numbers.

The `reference` setting against the reference code (github.com/ljhearne/LSTNN_public, files under
lstnn/ and scripts/, line numbers at commit d139c51):

    aspect            reference                                        minivit (reference)
    puzzles, split    9,000 generated (3,000 per grade), 8,100 to      the same files and rows
                      train and 900 held out (stratified, random_state (lst.reference_splits); kept
                      42 in curricula.py, commit eef1642); the human   apart: the same 108
                      study's 108 puzzles to validate
    input tokens      one-hot over 1-4 and the query, a blank cell     one-hot over blank, 1-4, query;
                      all zeros (dataset.py 242-248)                   the same once embedded with a bias
    embedding         Linear(5, 160) with bias (transformer_main 231)  1x1 patch embedding, with bias
    readout           the last token, cell 15 (transformer_main 305)   pool="last"
    position table    one per block, 16 x 160, `randn * sigma`, added  per_block=True, N(0, sigma^2),
                      before attention, at the others' rate            position_lr_scale 1
                      (learnable_pe 15, transformer_main 415)
    2-D sinusoid      owned by every block: dropout(x + pe), p = 0.1,  per_block=True, dropout=0.1;
                      on at evaluation too (PositionalEncoding2D       scored both ways
                      51-84; run_transformer never calls eval())       (accuracy, accuracy_dropout_on)
    blocks            4, post-LN, 1 head, width 160 (419-422)          the same
    MLP               Linear-GELU-Linear-GELU (372-376)                no last GELU (not measured)
    weight init       PyTorch's defaults, nn.MultiheadAttention's      init="torch": the same
    optimizer         AdamW lr 1e-4, betas (0.9, 0.999), wd 0,         the same
                      constant, no warmup (run_transformer 143-146)
    batches           128, reshuffled each epoch, the last partial     128, reshuffled; the last
                      batch kept: 64 steps an epoch                    partial batch dropped (36 of
                                                                       8,100 puzzles an epoch, each
                                                                       epoch others: not measured)
    length            4,001 epochs, 256,064 steps                      the same (reference-200: its
                                                                       first 201 epochs)
    scores            train: the mean of the epoch's batch accuracies  accuracy on every set after
                      while it trains; held-out: a mean over 8         training, in eval mode; the
                      batches (the last of 4 puzzles)                  batch curve as it trains
    precision         fp32                                             fp32 on a CPU, bf16 on a GPU

`reference-64` is the course's own, CPU-sized set-up, not the paper's: width 64, the tables at the
reference's learning rate and the other weights at 3x it, 8,000 steps, everything else as above;
`reference-64-reach` gives the tables 100x the rate. Lesson 07 quotes no paper number for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from minivit.config import INITS, ViTConfig, preset
from minivit.data import lst
from minivit.train import default_warmup, lr_at

SIGMAS = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0)
PUZZLES = ("generated", "reference")
REFERENCE = "sincos2d"
GRID = (4, 4)


# Ito et al. 2024, mean over 15 seeds: sigma -> (held-out generated puzzles, puzzles kept apart)
PUBLISHED: dict[str, tuple[float, float]] = {
    "0.1": (0.970, 0.925),
    "0.2": (0.986, 0.956),
    "0.5": (0.986, 0.946),
    "1.0": (0.981, 0.894),
    "1.5": (0.916, 0.616),
    "2.0": (0.847, 0.377),
    REFERENCE: (0.985, 0.977),
}


@dataclass(frozen=True)
class Setting:
    """Model size, training length and data of one sweep (the defaults are the published ones)."""

    dim: int = 160
    depth: int = 4
    steps: int = 12800  # about 230 epochs of 7,200 puzzles: past where the published results plateau
    lr: float = 1e-4
    batch_size: int = 128
    n_train: int = 8192
    n_eval: int = 1000
    optimizer: str = "adamw"
    position_lr_scale: float = 1.0  # the tables' learning rate, as a multiple of the others'
    schedule: str = "constant"  # the reference trains at a constant learning rate, no warmup
    warmup: int | None = 0
    max_rounds: int | None = 1  # generated puzzles like the reference's: one round of deduction
    init: str = "trunc_normal"  # the other weights' init (ViTConfig.init; "torch": the reference's)
    sincos_per_block: bool = False  # the 2-D sinusoid added before every block (the reference)...
    sincos_dropout: float = 0.0  # ...as dropout(x + pe), p = 0.1 in the reference
    puzzles: str = "generated"  # "generated" (lst.splits) or "reference" (Ito et al.'s own files)
    split: str = "published"  # the reference puzzles' split: "published" (theirs) or "random"

    def __post_init__(self) -> None:
        for name, value, known in (
            ("puzzles", self.puzzles, PUZZLES),
            ("split", self.split, lst.SPLITS),
            ("init", self.init, INITS),
        ):
            if value not in known:
                raise ValueError(f"Setting({name}={value!r}): use one of {', '.join(known)}")

    @property
    def reach(self) -> float:
        """About how far Adam can move one table entry in the whole run: the sum of the tables'
        learning rate over the steps (lr * steps at a constant rate; about lr * steps / 2 with warmup
        and cosine decay)."""
        warmup = default_warmup(self.steps) if self.warmup is None else self.warmup
        total = sum(
            lr_at(s, steps=self.steps, lr=self.lr, warmup=warmup, schedule=self.schedule)
            for s in range(self.steps)
        )
        return total * self.position_lr_scale

    def config(self, encoding: str) -> ViTConfig:
        """The LST model with a learned table initialised N(0, sigma^2) (encoding "0.1", ...) or the
        fixed 2-D sinusoid (encoding "sincos2d")."""
        base = preset("lst").with_(dim=self.dim, depth=self.depth, init=self.init)
        if encoding == REFERENCE:
            options = {"per_block": True, "dropout": self.sincos_dropout} if self.sincos_per_block else {}
            return base.with_(position=REFERENCE, position_options=options)
        return base.with_(position_options={**base.position_options, "std": float(encoding)})


# Ito et al.'s reference run, aspect by aspect (the table above): its init, its sinusoid, its puzzles
# and split; its epoch is 64 steps (8,100 puzzles in batches of 128, the last partial batch kept)
REFERENCE_RUN = {
    "init": "torch",
    "sincos_per_block": True,
    "sincos_dropout": 0.1,
    "puzzles": "reference",
    "split": "published",
}
EPOCH = 64


# the course's CPU-sized set-up: width 64, the tables at the reference's learning rate and the
# other weights at 3x it (position_lr_scale 1/3)
CPU_RUN = {**REFERENCE_RUN, "dim": 64, "lr": 3e-4, "position_lr_scale": 1 / 3}
SETTINGS = {
    # the reference run: 4,001 epochs (its logs' "e-4000"), 256,064 steps; for a GPU
    "reference": Setting(steps=4001 * EPOCH, **REFERENCE_RUN),
    # the same, stopped at its logs' epoch 200 (201 epochs, 12,864 steps), where the logged runs have
    # both regimes already (σ = 2: train 0.98, the study's puzzles 0.39; σ = 0.1: 1.00 and 0.95)
    "reference-200": Setting(steps=201 * EPOCH, **REFERENCE_RUN),
    # stopped after 101 epochs (6,464 steps): about 10 minutes a run on 2 CPU cores
    "reference-100": Setting(steps=101 * EPOCH, **REFERENCE_RUN),
    # lesson 07's recorded sweep, 8,000 steps (125 epochs): about 3 minutes a run on 2 CPU cores
    "reference-64": Setting(steps=8000, **CPU_RUN),
    # the same with the tables at 100x the reference's rate (1e-2): 100x their reach
    "reference-64-reach": Setting(steps=8000, **{**CPU_RUN, "position_lr_scale": 100 / 3}),
    # lesson 07's live runs: width 32 at 10x the reference's rate (the tables at 3.3x), 2,500 steps
    # (the two runs trained at once: about 2.5 minutes on 2 CPU cores)
    "lesson": Setting(steps=2500, **{**CPU_RUN, "dim": 32, "lr": 1e-3}),
}


def encodings(sigmas: tuple[float, ...] = SIGMAS) -> list[str]:
    return [str(float(s)) for s in sigmas] + [REFERENCE]


def label(encoding: str) -> str:
    return "2-D sinusoid" if encoding == REFERENCE else f"σ = {encoding}"


def make_data(setting: Setting, seed: int = 0, puzzles: str | Path | None = None) -> dict[str, lst.LSTSet]:
    """Train / held-out / kept-apart puzzles (the same for every run of a sweep): generated by
    `lst.splits`, or with `setting.puzzles == "reference"` Ito et al.'s own (`lst.reference_splits`:
    its 9,000 generated puzzles split as `setting.split` says, the human study's 108 kept apart),
    from the copy inside minivit or from the folder `puzzles`."""
    if setting.puzzles == "reference":
        return lst.reference_splits(puzzles, split=setting.split, seed=seed)
    if puzzles is not None:
        raise ValueError(
            f"puzzles={str(puzzles)!r} is for the reference's puzzles; this setting generates its own"
        )
    return lst.splits(
        setting.n_train, setting.n_eval, setting.n_eval, seed=seed, max_rounds=setting.max_rounds
    )
