"""minivit: a small Vision Transformer whose positional encoding is a plug-in, for learning how
ViTs know where things are."""

from minivit.config import PRESETS, ViTConfig, preset
from minivit.model import ViT
from minivit.posenc import REGISTRY, build

__version__ = "0.1.0"

__all__ = ["PRESETS", "REGISTRY", "ViT", "ViTConfig", "build", "preset"]
