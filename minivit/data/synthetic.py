"""Procedural image tasks on a layout of cells, rendered at any resolution from a seed.

A scene is drawn from the seed alone (which shape in which cell, its size, offset and colour), in
continuous coordinates; `image_size` only decides how finely it is rasterised (with supersampling
for smooth edges). The same seed at 24 and 48 pixels gives the same scenes, the second sharper.

When cells align with patches (image size a multiple of `cells * patch_size`) and the background
is plain, moving a cell's content is exactly a permutation of patches, so a model without position
cannot do better than chance on a task whose answer is a cell.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils.data import TensorDataset

from minivit.checks import check_whole
from minivit.devices import check_room

SHAPES = ("square", "circle", "triangle", "cross")


class SyntheticTask(TensorDataset):
    """Images [n, 3, S, S] in [0, 1] and integer labels [n], with the classes' names and each scene's
    layout [n, cells*cells] (shape id per cell, -1 empty)."""

    def __init__(self, images: Tensor, labels: Tensor, classes: list[str], name: str, layout: Tensor):
        super().__init__(images, labels)
        self.classes, self.name, self.layout = classes, name, layout

    @property
    def images(self) -> Tensor:
        return self.tensors[0]

    @property
    def labels(self) -> Tensor:
        return self.tensors[1]

    def __repr__(self) -> str:
        n, c, h, w = self.images.shape
        return f"SyntheticTask({self.name!r}, n={n}, images {c}x{h}x{w}, {len(self.classes)} classes)"


def _inside(shape: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """Whether local point (x, y) in [-1, 1]^2 (y down) lies inside shape id `shape` (-1: empty)."""
    ax, ay = x.abs(), y.abs()
    square = torch.maximum(ax, ay) <= 0.75
    circle = x * x + y * y <= 0.85**2
    triangle = (y <= 0.75) & (ax <= 0.85 * (y + 0.85) / 1.6)  # apex up, base down
    cross = ((ax <= 0.28) & (ay <= 0.85)) | ((ay <= 0.28) & (ax <= 0.85))
    return (
        ((shape == 0) & square) | ((shape == 1) & circle) | ((shape == 2) & triangle) | ((shape == 3) & cross)
    )


RENDER_BYTES = 1 << 29  # work space of one chunk of scenes being rendered
RENDER_BYTES_PER_SAMPLE = 128  # bytes of work space per supersample of a scene (measured: about 115)


def render_cells(
    shape: Tensor,
    color: Tensor,
    scale: Tensor,
    offset: Tensor,
    *,
    cells: int,
    image_size: int,
    supersample: int = 4,
    chunk: int | None = None,
) -> Tensor:
    """Rasterise scenes of cells x cells shapes.

    Args:
        shape: [n, cells*cells] shape id per cell (index into SHAPES; -1 leaves the cell empty).
        color: [n, cells*cells, 3] RGB in [0, 1].
        scale: [n, cells*cells] size of the shape relative to its cell.
        offset: [n, cells*cells, 2] (x, y) shift of the shape in its cell, in half-cells.
        chunk: scenes rendered at once (default: as many as fit in about RENDER_BYTES of work space,
            at most 512); the images do not depend on it.
    Returns:
        images [n, 3, image_size, image_size] in [0, 1] on a black background.
    """
    s = image_size * supersample
    chunk = chunk or max(1, min(512, RENDER_BYTES // (s * s * RENDER_BYTES_PER_SAMPLE)))
    t = (torch.arange(s, dtype=torch.float32) + 0.5) / s  # pixel centres in (0, 1)
    v, u = torch.meshgrid(t, t, indexing="ij")  # (s, s): v down, u right
    row, col = (v * cells).floor(), (u * cells).floor()
    cell = (row * cells + col).long()  # (s, s) which cell each sample lies in
    ly, lx = (v * cells - row - 0.5) * 2, (u * cells - col - 0.5) * 2  # local coords in [-1, 1]
    out = []
    for i in range(0, len(shape), chunk):
        sh, sc = shape[i : i + chunk][:, cell], scale[i : i + chunk][:, cell]  # (b, s, s)
        off, rgb = offset[i : i + chunk][:, cell], color[i : i + chunk][:, cell]  # (b, s, s, 2|3)
        x, y = (lx - off[..., 0]) / sc, (ly - off[..., 1]) / sc
        mask = _inside(sh, x, y).float()  # (b, s, s)
        img = (rgb * mask[..., None]).permute(0, 3, 1, 2)  # (b, 3, s, s)
        out.append(F.avg_pool2d(img, supersample))  # (b, 3, S, S)
    return torch.cat(out)


def _random_layout(n: int, cells: int, g: torch.Generator) -> tuple[Tensor, Tensor, Tensor]:
    """Per-image colour and per-cell scale and offset (shapes stay inside their cells)."""
    k = cells * cells
    hue = torch.rand(n, 1, generator=g)
    # a bright colour per image from its hue (HSV with s = v = 1)
    color = (torch.cat([hue, hue + 1 / 3, hue + 2 / 3], dim=1) * 2 * torch.pi).cos() * 0.4 + 0.6
    scale = 0.6 + 0.3 * torch.rand(n, k, generator=g)
    room = (1 - 0.85 * scale)[..., None]  # how far the shape can move and stay in its cell
    offset = (torch.rand(n, k, 2, generator=g) * 2 - 1) * room
    return color[:, None, :].expand(n, k, 3), scale, offset


def _check_sizes(task: str, n: int, image_size: int, cells: int, seed: int, least_cells: int = 1) -> None:
    """Raise a ValueError naming the first argument of a task's generator out of range (the
    generators are what the lessons call directly, so they check what `load_task` would)."""
    check_whole(f"{task}: n", n, 1)
    check_whole(f"{task}: image_size", image_size, 1)
    check_whole(f"{task}: cells", cells, least_cells)
    check_whole(f"{task}: seed", seed, 0, 2**63 - 1)
    scenes = 2 * n * 3 * image_size**2 * 4 + n * cells**2 * 64  # the images twice (chunks, joined), layouts
    check_room(scenes, f"{task}(n={n}, image_size={image_size})", "pass a smaller n or image_size")


def odd_one_out(n: int, *, image_size: int = 24, cells: int = 3, seed: int = 0) -> SyntheticTask:
    """Which cell holds the odd shape? Every cell holds one shape; all but one are the same kind.

    A task that needs position: the answer is a cell (cells*cells classes, raster order).
    """
    _check_sizes("odd_one_out", n, image_size, cells, seed)
    g = torch.Generator().manual_seed(seed)
    k = cells * cells
    common = torch.randint(len(SHAPES), (n,), generator=g)
    odd = (common + torch.randint(1, len(SHAPES), (n,), generator=g)) % len(SHAPES)  # != common
    label = torch.randint(k, (n,), generator=g)
    shape = common[:, None].repeat(1, k)
    shape[torch.arange(n), label] = odd
    color, scale, offset = _random_layout(n, cells, g)
    images = render_cells(shape, color, scale, offset, cells=cells, image_size=image_size)
    classes = [f"cell ({r}, {c})" for r in range(cells) for c in range(cells)]
    return SyntheticTask(images, label, classes, "odd_one_out", shape)


def _one_shape(n: int, image_size: int, cells: int, seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Scenes with one shape of a random kind in a random cell: images, kinds, cells, layouts."""
    g = torch.Generator().manual_seed(seed)
    k = cells * cells
    kind = torch.randint(len(SHAPES), (n,), generator=g)
    cell = torch.randint(k, (n,), generator=g)
    shape = torch.full((n, k), -1)
    shape[torch.arange(n), cell] = kind
    color, scale, offset = _random_layout(n, cells, g)
    images = render_cells(shape, color, scale, offset, cells=cells, image_size=image_size)
    return images, kind, cell, shape


def which_shape(n: int, *, image_size: int = 24, cells: int = 3, seed: int = 0) -> SyntheticTask:
    """Which shape is in the picture? One shape in a random cell; the answer is its kind.

    A task that needs content, not position: a model without positional encoding solves it.
    """
    _check_sizes("which_shape", n, image_size, cells, seed)
    images, kind, _, layout = _one_shape(n, image_size, cells, seed)
    return SyntheticTask(images, kind, list(SHAPES), "which_shape", layout)


def where(n: int, *, image_size: int = 24, cells: int = 3, seed: int = 0) -> SyntheticTask:
    """Which cell holds the shape? The scenes of `which_shape`; the answer is the cell.

    A task that needs position alone: every image holds the same patches up to their order.
    """
    _check_sizes("where", n, image_size, cells, seed)
    images, _, cell, layout = _one_shape(n, image_size, cells, seed)
    classes = [f"cell ({r}, {c})" for r in range(cells) for c in range(cells)]
    return SyntheticTask(images, cell, classes, "where", layout)


RELATIONS = ("circle left of square", "circle right of square", "circle above square", "circle below square")


def relation(n: int, *, image_size: int = 24, cells: int = 3, seed: int = 0) -> SyntheticTask:
    """Is the circle left of, right of, above or below the square? They share a row or a column.

    A task that needs relative position (4 classes): both shapes appear in every image, so a
    model without positional encoding sees the same bag of patches for every answer.
    """
    _check_sizes("relation", n, image_size, cells, seed, 2)
    g = torch.Generator().manual_seed(seed)
    label = torch.randint(4, (n,), generator=g)
    line = torch.randint(cells, (n,), generator=g)  # the shared row or column
    a = torch.randint(cells, (n,), generator=g)
    b = (a + torch.randint(1, cells, (n,), generator=g)) % cells  # != a
    lo, hi = torch.minimum(a, b), torch.maximum(a, b)
    # circle position along the line: first for "left of"/"above", second for "right of"/"below"
    circle_at = torch.where(label % 2 == 0, lo, hi)
    square_at = torch.where(label % 2 == 0, hi, lo)
    images, shape = _circle_and_square(line, circle_at, square_at, label < 2, cells, image_size, g)
    return SyntheticTask(images, label, list(RELATIONS), "relation", shape)


def _circle_and_square(
    line: Tensor,
    circle_at: Tensor,
    square_at: Tensor,
    horizontal: Tensor,
    cells: int,
    image_size: int,
    g: torch.Generator,
) -> tuple[Tensor, Tensor]:
    """Scenes with a circle and a square on one row (`horizontal`) or column `line`, at positions
    `circle_at` and `square_at` along it: images and layouts."""
    n = len(line)
    circle = torch.where(horizontal, line * cells + circle_at, circle_at * cells + line)
    square = torch.where(horizontal, line * cells + square_at, square_at * cells + line)
    shape = torch.full((n, cells * cells), -1)
    shape[torch.arange(n), circle] = SHAPES.index("circle")
    shape[torch.arange(n), square] = SHAPES.index("square")
    color, scale, offset = _random_layout(n, cells, g)
    return render_cells(shape, color, scale, offset, cells=cells, image_size=image_size), shape


GAPS = ("neighbours", "one cell between", "two cells between")


def distance(n: int, *, image_size: int | None = None, cells: int = 4, seed: int = 0) -> SyntheticTask:
    """How far apart are the circle and the square? They share a row or a column, with 0, 1 or 2
    cells between them (3 classes; needs cells >= 2, and cells >= 4 for every class). Rendered at 8
    pixels a cell unless `image_size` says otherwise.

    A task that needs distance and nothing else: left and right, up and down, and where the pair
    lies on the canvas do not matter, so an encoding that sees only distance (ALiBi-2D) can solve it,
    and on a larger canvas (more cells) the answers are the same distances in pixels.
    """
    if isinstance(cells, int) and not isinstance(cells, bool) and cells < 2:
        raise ValueError(f"the distance task needs at least 2 cells a side; got {cells}")
    _check_sizes("distance", n, 8 if image_size is None else image_size, cells, seed, 2)
    g = torch.Generator().manual_seed(seed)
    gaps = min(len(GAPS), cells - 1)
    label = torch.randint(gaps, (n,), generator=g)
    line = torch.randint(cells, (n,), generator=g)  # the shared row or column
    first = (torch.rand(n, generator=g) * (cells - 1 - label)).long()  # room for the second shape
    second = first + label + 1
    horizontal = torch.rand(n, generator=g) < 0.5
    circle_first = torch.rand(n, generator=g) < 0.5
    circle_at, square_at = torch.where(circle_first, first, second), torch.where(circle_first, second, first)
    images, shape = _circle_and_square(
        line, circle_at, square_at, horizontal, cells, image_size or 8 * cells, g
    )
    return SyntheticTask(images, label, list(GAPS), "distance", shape)


TASKS = {
    "odd_one_out": odd_one_out,
    "which_shape": which_shape,
    "where": where,
    "relation": relation,
    "distance": distance,
}
# the layout each task is drawn on by default (cells a side) and its image size
DEFAULT_CELLS = {"distance": 4}


def make_task(
    name: str, n: int, *, image_size: int | None = None, cells: int | None = None, seed: int = 0
) -> SyntheticTask:
    """A synthetic task by name (see TASKS) on a layout of cells x cells (default: the task's own,
    3 or 4 cells), rendered at `image_size` (default 8 pixels a cell)."""
    if name not in TASKS:
        raise ValueError(f"unknown synthetic task {name!r}; known: {', '.join(TASKS)}")
    cells = cells or DEFAULT_CELLS.get(name, 3)
    return TASKS[name](n, image_size=image_size or 8 * cells, cells=cells, seed=seed)


def shuffle_patches(images: Tensor, patch_size: int, perm: Tensor) -> Tensor:
    """Rearrange the p x p patches of images [B, C, H, W]: patch perm[i] of the input lands at i."""
    B, C, H, W = images.shape
    gh, gw = H // patch_size, W // patch_size
    p = images.reshape(B, C, gh, patch_size, gw, patch_size).permute(0, 2, 4, 1, 3, 5)
    p = p.reshape(B, gh * gw, C, patch_size, patch_size)[:, perm]  # (B, N, C, p, p)
    p = p.reshape(B, gh, gw, C, patch_size, patch_size).permute(0, 3, 1, 4, 2, 5)
    return p.reshape(B, C, H, W)
