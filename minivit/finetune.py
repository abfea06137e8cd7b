"""A trained model carried to another image size: the same weights built for the new patch grid, its
positional encoding carried there (`PositionalEncoding.carry_to`: a learned table resampled
bicubically, a relative-bias table resized, positions still measured against the grid it was trained
at), then a short fine-tune there, as ViT fine-tunes at a higher resolution than it trained at
(Dosovitskiy et al. 2021, arXiv 2010.11929, section 3.2) and DeiT after it (Touvron et al. 2021,
arXiv 2012.12877)."""

from __future__ import annotations

from torch.utils.data import TensorDataset

from minivit.config import as_pair
from minivit.model import ViT
from minivit.train import fit


def carried(model: ViT, image_size: int | tuple[int, int]) -> ViT:
    """`model` rebuilt for images of `image_size` (its config's training size), before any step: every
    weight as trained and its encoding carried to the new grid (`PositionalEncoding.carry_to`), so at
    that size it computes what `model` computes there. Its state dict holds what the encoding was
    trained at: a ViT built from its config and loaded with it is the same model."""
    size = as_pair(image_size)
    config = model.config.with_(image_size=size)
    tuned = ViT(config)
    pos = model.pos.carry_to(config.grid)
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("pos.")}
    state.update({f"pos.{k}": v for k, v in pos.state_dict().items()})
    mine = tuned.state_dict()
    wrong = [k for k, v in mine.items() if k in state and v.shape != state[k].shape]
    if wrong:
        raise ValueError(
            f"the {config.position} encoding carried to {size[0]}x{size[1]}px leaves {', '.join(wrong)} "
            f"of another shape than a model built there has: its carry_to must resample them to the new grid"
        )
    tuned.load_state_dict(state)
    return tuned.train(model.training)


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
    """A short fine-tune at a new size: `model` carried to the grid of `data`'s images (`carried`)
    and trained on `data`, every weight at one learning rate as in ViT's and DeiT's fine-tunes at a
    higher resolution (`position_lr_scale` sets the position parameters apart)."""
    h, w = data.tensors[0].shape[-2:]
    size = h if h == w else (h, w)
    tuned = carried(model, size)
    fit(
        tuned,
        data,
        steps=steps,
        lr=lr,
        weight_decay=0.0,
        position_lr_scale=position_lr_scale if any(p.requires_grad for p in tuned.pos.parameters()) else 1.0,
        seed=seed,
        progress=progress,
        desc=f"fine-tune at {h}px" if h == w else f"fine-tune at {h}x{w}px",
    )
    return tuned.eval()
