"""No positional encoding: attention sees a bag of patches.

Without position, every part of a ViT treats tokens alike (patch embedding, LayerNorm and MLP act
per token; attention is a weighted sum over all tokens), so permuting the patches permutes the
outputs, and mean pooling makes the model's answer exactly invariant to the permutation.
"""

from minivit.posenc.base import PositionalEncoding


class NoneEncoding(PositionalEncoding):
    """All three hooks are the base class's no-ops."""
