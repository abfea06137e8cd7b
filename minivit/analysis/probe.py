"""Linear probes of position (Alain & Bengio 2016, arXiv 1610.01644): how well a patch's row and
column can be read, linearly, from its token at each stage of a model."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.analysis.trace import trace
from minivit.posenc.base import grid_coords

if TYPE_CHECKING:
    from minivit.model import ViT


def position_probe(model: ViT, train_images: Tensor, test_images: Tensor, ridge: float = 1e-6) -> dict:
    """Linear probes (Alain & Bengio 2016, arXiv 1610.01644) of each patch's row and column from its
    token, at every stage of the model: fit on the tokens of `train_images` [B, C, H, W], scored on
    those of `test_images` (held out).

        Y ~ X W + b,   W = (X^T X + lambda I)^-1 X^T Y   on centred X [B*N, D], Y [B*N, k]

    with lambda = ridge * trace(X^T X) / D, for two targets Y: the coordinates (row, col) (k = 2), and
    the row and the column one-hot (k = gh + gw), read as the class with the largest output.
    Stages: the input of block 0 (position added), then the output of every block (S = depth + 1).
    Prefix tokens are left out.

    Returns a dict:
        r2: [S, 2] R^2 of the (row, col) read-out on the test tokens, 1 - SSE / SST: about 0 (or a
            little below) when the tokens carry nothing linear about position, 1 when they hold it;
        accuracy: [S, 2] share of test patches whose row (col) the one-hot read-out gets right;
        chance: [2] the accuracy of a guess, 1 / gh and 1 / gw;
        stages: the S stage names.
    """
    if isinstance(ridge, bool) or not (
        isinstance(ridge, int | float) and math.isfinite(ridge) and ridge >= 0
    ):
        raise ValueError(f"ridge={ridge!r} is not a finite number >= 0; e.g. ridge=1e-6")
    train, test = trace(model, train_images), trace(model, test_images)
    grid = train["grid"]
    if tuple(test["grid"]) != tuple(grid):
        raise ValueError(
            f"train images give grid {grid}, test images {test['grid']}; probe at one image size"
        )
    if min(grid) < 2:
        raise ValueError(
            f"grid {grid[0]}x{grid[1]}: a probe of (row, col) needs at least 2 rows and 2 columns; "
            "use larger images"
        )
    gh, gw = grid
    p = model.pos.num_prefix_tokens
    rc = grid_coords(grid, dtype=torch.long, device=train_images.device)  # (N, 2)
    targets = torch.cat([rc, F.one_hot(rc[:, 0], gh), F.one_hot(rc[:, 1], gw)], 1).double()  # (N, 2+gh+gw)
    stages = ["input of block 0"] + [f"output of block {i}" for i in range(len(model.blocks))]
    r2, accuracy = [], []
    for x_train, x_test in zip(
        [train["inputs"][0], *train["outputs"]], [test["inputs"][0], *test["outputs"]], strict=True
    ):
        d = x_train.shape[-1]
        x = x_train[:, p:].reshape(-1, d).double()  # (B*N, D)
        y = targets.repeat(len(x_train), 1)  # (B*N, 2+gh+gw)
        x_mean, y_mean = x.mean(0), y.mean(0)
        x, y = x - x_mean, y - y_mean
        gram = x.T @ x  # (D, D)
        lam = ridge * gram.trace() / d
        w = torch.linalg.solve(gram + lam * torch.eye(d, dtype=gram.dtype, device=gram.device), x.T @ y)
        pred = (x_test[:, p:].reshape(-1, d).double() - x_mean) @ w + y_mean  # (B'*N, 2+gh+gw)
        truth = rc.repeat(len(x_test), 1)  # (B'*N, 2)
        coords = truth.double()
        sse = ((pred[:, :2] - coords) ** 2).sum(0)
        sst = ((coords - coords.mean(0)) ** 2).sum(0)
        r2.append(1 - sse / sst)
        row, col = pred[:, 2 : 2 + gh].argmax(1), pred[:, 2 + gh :].argmax(1)
        accuracy.append(torch.stack([row == truth[:, 0], col == truth[:, 1]], 1).double().mean(0))
    chance = torch.tensor([1 / gh, 1 / gw], dtype=torch.float64)
    return {"r2": torch.stack(r2), "accuracy": torch.stack(accuracy), "chance": chance, "stages": stages}
