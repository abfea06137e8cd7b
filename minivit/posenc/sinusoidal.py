"""The sinusoidal encodings' names where lesson 10 imports them: `minivit.posenc.sincos` holds them
(the module of the `sincos1d` and `sincos2d` encodings)."""

from minivit.posenc.sincos import Sincos1D, Sincos2D, sincos_1d, sincos_2d  # noqa: F401
