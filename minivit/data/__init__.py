"""Data for the course: procedural image tasks rendered at any resolution, deterministic given a seed."""

from minivit.data.synthetic import SHAPES, SyntheticTask, odd_one_out, render_cells, shuffle_patches

__all__ = ["SHAPES", "SyntheticTask", "odd_one_out", "render_cells", "shuffle_patches"]
