"""A trained model carried to another image size: the same weights built for the new patch grid (a
learned table resampled bicubically, `posenc.learned.resample`), then a short fine-tune there, as
ViT fine-tunes at a higher resolution than it trained at (Dosovitskiy et al. 2021, arXiv
2010.11929, section 3.2) and DeiT after it (Touvron et al. 2021, arXiv 2012.12877)."""

from __future__ import annotations

import torch
from torch.utils.data import TensorDataset

from minivit.model import ViT
from minivit.posenc.learned import Learned, resample
from minivit.train import fit


def finetune(
    model: ViT,
    data: TensorDataset,
    *,
    steps: int = 100,
    lr: float = 5e-4,
    position_lr_scale: float = 1.0,
    seed: int = 0,
    progress: bool = False,
) -> ViT:
    """A short fine-tune at a new size: a copy of `model` built for the new grid (a learned table
    resampled) trained on `data`, every weight at one learning rate as in ViT's and DeiT's
    fine-tunes at a higher resolution (`position_lr_scale` sets the position parameters apart)."""
    size = data.tensors[0].shape[-1]
    grid = (size // model.config.patch_size,) * 2
    tuned = ViT(model.config.with_(image_size=size))
    state = model.state_dict()
    if isinstance(model.pos, Learned):
        old = model.config.grid
        state["pos.table"] = torch.stack(
            [
                resample(
                    t,
                    old,
                    grid,
                    num_prefix_tokens=model.config.num_prefix_tokens,
                    antialias=model.pos.antialias,
                )
                for t in model.pos.table.detach()
            ]
        )
    wrong = [k for k, v in tuned.state_dict().items() if v.shape != state[k].shape]
    if wrong:
        raise ValueError(
            f"finetune cannot carry {', '.join(wrong)} to a {size}px grid; it handles learned tables"
        )
    tuned.load_state_dict(state)
    fit(
        tuned,
        data,
        steps=steps,
        lr=lr,
        weight_decay=0.0,
        position_lr_scale=position_lr_scale if any(p.requires_grad for p in tuned.pos.parameters()) else 1.0,
        seed=seed,
        progress=progress,
        desc=f"fine-tune at {size}px",
    )
    return tuned.eval()
