"""Accuracy of a trained model."""

from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import TensorDataset


@torch.no_grad()
def predict(model: nn.Module, images: torch.Tensor, *, batch_size: int = 512) -> torch.Tensor:
    """Predicted class of each image [n] (on the model's device, returned on the CPU)."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    out = [
        model(images[i : i + batch_size].to(device)).argmax(-1).cpu()
        for i in range(0, len(images), batch_size)
    ]
    model.train(was_training)
    return torch.cat(out)


def evaluate(model: nn.Module, data: TensorDataset, *, batch_size: int = 512) -> float:
    """Fraction of `data` (images, labels) the model classifies correctly."""
    images, labels = data.tensors[:2]
    return (predict(model, images, batch_size=batch_size) == labels.cpu()).float().mean().item()
