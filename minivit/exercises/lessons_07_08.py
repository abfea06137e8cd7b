"""Checks for lesson 07 (the initial scale, on Latin square puzzles) and lesson 08 (resolution)."""

from __future__ import annotations

import functools

import torch

from minivit.exercises.core import (
    Wrong,
    differs,
    exercise,
    expect,
    function,
    indices,
    kind,
    not_none,
    same,
    shape_text,
    tensor,
)

# --- lesson 07 ------------------------------------------------------------------------------------


@functools.cache
def _puzzles():
    """60 generated puzzles, 20 of each grade: (cells [60, 16], grades)."""
    from minivit.data import lst

    s = lst.generate(60, seed=1)
    return s.cells, s.grades


def _one_per_puzzle(answer, n: int, what: str) -> list:
    """The answer as a list of one value per puzzle: a list, a tuple, or a tensor whose rows are the
    puzzles' values."""
    hint = f"return {what} per puzzle"
    not_none(answer, "a list", hint)
    if isinstance(answer, torch.Tensor):
        expect(
            answer.ndim >= 1 and len(answer) == n,
            f"the answer has shape {shape_text(tuple(answer.shape))}, not one row per puzzle ({n})",
            hint,
        )
        return answer.tolist()
    expect(
        isinstance(answer, (list, tuple)),
        f"the answer is {kind(answer)}, not a list with one entry per puzzle",
        hint,
    )
    entries = "1 entry" if len(answer) == 1 else f"{len(answer)} entries"
    expect(len(answer) == n, f"the answer has {entries} for {n} puzzles", hint)
    return list(answer)


@exercise(
    "07.4",
    "the symbol forced at the query, by enumerating the squares",
    hint="return a tensor [P] of symbols 1-4, one per puzzle; lst.latin_squares() holds the 576 squares",
)
def _forced(answer) -> str:
    from minivit.data import lst

    f = function(answer, "(cells)")
    cells, grades = _puzzles()
    got = indices(f(cells.clone()), "return a tensor [P] of symbols 1-4, one per puzzle", len(cells))
    want = lst.forced(cells)
    wrong = (got != want).nonzero().reshape(-1).tolist()
    if wrong:
        by_grade = sorted({grades[i] for i in wrong}, key=lst.GRADES.index)
        i = wrong[0]
        raise Wrong(
            f"{len(wrong)} of {len(cells)} answers differ ({', '.join(by_grade)} puzzles), e.g. puzzle {i}: "
            f"{got[i].item()} where {want[i].item()} is forced",
            "keep the squares that agree with every shown cell (not only the query's row or column), and "
            "read the symbol they put at the query's cell",
        )
    return "every answer is the one symbol all consistent squares put at the query, whatever the grade"


def _key(k):
    if isinstance(k, torch.Tensor):
        return tuple(k.reshape(-1).tolist())
    return tuple(k) if isinstance(k, list) else k


@exercise(
    "07.5",
    "a key of each puzzle's view",
    hint="return one hashable key per puzzle (a string or a tuple), equal exactly when the views are equal",
)
def _views(answer) -> str:
    f = function(answer, "(cells)")
    base, _ = _puzzles()
    g = torch.Generator().manual_seed(0)
    pairs = {"outside": [], "row": [], "column": []}  # puzzles that differ in one cell there
    variants = []
    for p in base[:30]:
        q = int((p == 5).nonzero())
        r, c = divmod(q, 4)
        where = {
            "outside": [i for i in range(16) if i // 4 != r and i % 4 != c],
            "row": [r * 4 + k for k in range(4) if k != c],
            "column": [k * 4 + c for k in range(4) if k != r],
        }
        for name, cells in where.items():
            i = cells[int(torch.randint(len(cells), (1,), generator=g))]
            changed = p.clone()
            changed[i] = (p[i] + 1 + int(torch.randint(4, (1,), generator=g))) % 5  # another of 0-4
            pairs[name].append((len(variants), len(variants) + 1))
            variants += [p, changed]
    cells = torch.stack(variants)
    keys = [_key(k) for k in _one_per_puzzle(f(cells.clone()), len(cells), "one key")]
    try:
        equal = {name: [keys[a] == keys[b] for a, b in ab] for name, ab in pairs.items()}
    except TypeError:
        raise Wrong("the keys cannot be compared", "return strings or tuples") from None
    expect(
        all(equal["outside"]),
        "two puzzles that differ only outside the query's row and column get two keys",
        "the view is the query's cell with its row and its column: what lies elsewhere is no part of it",
    )
    expect(
        not any(equal["row"]),
        "two puzzles whose query rows differ get one key",
        "the view holds the query's row: its four cells as they are",
    )
    expect(
        not any(equal["column"]),
        "two puzzles whose query columns differ get one key",
        "the view holds the query's column too, not only its row",
    )
    return (
        "one key per view: a binary or ternary puzzle's view fixes its answer, and over half the held-out "
        "puzzles share a training puzzle's view (lst.seen_view)"
    )


@exercise(
    "07.6",
    "each puzzle's grade",
    hint='return one of "binary", "ternary", "quaternary" per puzzle',
)
def _grades(answer) -> str:
    f = function(answer, "(cells)")
    cells, want = _puzzles()
    got = _one_per_puzzle(f(cells.clone()), len(cells), "one grade")
    wrong = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    if wrong:
        i = wrong[0]
        raise Wrong(
            f"{len(wrong)} of {len(cells)} grades differ, e.g. puzzle {i}: {got[i]!r} where it is "
            f"{want[i]!r}",
            "binary: the query's row alone, or its column alone, shows the three other symbols; ternary: "
            "only the two together do; quaternary: neither",
        )
    return "binary, ternary and quaternary as lst.grades has them: how much of the grid the deduction needs"


# --- lesson 08 ------------------------------------------------------------------------------------


@exercise("08.5", "positions after position interpolation", hint="return a tensor [new] of positions")
def _interpolated(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(trained, new)")
    for trained, new in ((3, 6), (4, 6), (7, 16), (5, 5), (6, 3)):
        enc = build("rope-axial", dim=16, heads=1, depth=1, grid=(trained, trained), interpolate=True)
        want = enc.positions((new, new))[:new, 1].double()  # the columns of the first row
        got = tensor(
            f(trained, new), "one position per row (or column) of the new grid: a tensor [new]", (new,)
        )
        stretched = torch.arange(new, dtype=torch.float64) * (trained - 1) / max(new - 1, 1)
        expect(
            not same(got, stretched) or same(stretched, want),
            f"for {trained} → {new} your last position is {got[-1].item():g}, exactly the last trained one",
            "Chen et al. scale by L/L′ (trained / new), not (L − 1)/(L′ − 1)",
        )
        expect(
            same(got, want),
            f"for {trained} → {new}, " + differs(got, want, "position"),
            "each new position is multiplied by the trained size over the new size",
        )
    return (
        "3 → 6 gives 0, 0.5, …, 2.5: the last position lands past the trained 2, which interpolation "
        "was meant to avoid"
    )


def _relation_labels(layout: torch.Tensor, cells: int) -> torch.Tensor:
    """Each scene's relation label from its layout [n, cells²]: 0 left of, 1 right of, 2 above, 3 below."""
    circle = (layout == 1).long().argmax(1)
    square = (layout == 0).long().argmax(1)
    rc, cc, rs, cs = circle // cells, circle % cells, square // cells, square % cells
    return torch.where(rc == rs, torch.where(cc < cs, 0, 1), torch.where(rc < rs, 2, 3))


@exercise("08.6", "the relation labels of the transposed scenes", hint="return a tensor of labels [n]")
def _transposed_labels(answer) -> str:
    from minivit.data import relation
    from minivit.posenc import build

    f = function(answer, "(labels)")
    data = relation(64, seed=0)
    transposed = data.layout.view(-1, 3, 3).transpose(1, 2).reshape(-1, 9)
    want = _relation_labels(transposed, 3)
    got = indices(f(data.labels.clone()), "return one label per scene, a tensor [n]", len(want))
    mirrored = torch.where(data.labels < 2, 1 - data.labels, data.labels)
    expect(
        not torch.equal(got, mirrored),
        "these are the labels of the left-right mirror",
        "swapping rows with columns turns a row into a column: where does 'left of' go?",
    )
    wrong = (got != want).nonzero().reshape(-1).tolist()
    if wrong:
        i = wrong[0]
        raise Wrong(
            f"scene {i} ({data.classes[data.labels[i]]}) gets label {got[i].item()}",
            "draw a 'left of' and an 'above' scene and transpose them: the first column turns into the first "
            "row",
        )
    t = torch.arange(36).view(6, 6).T.reshape(-1)
    bias = build("alibi2d", dim=16, heads=2, depth=1, grid=(6, 6)).attn_bias((6, 6), 0)
    unchanged = torch.equal(bias[:, t][:, :, t], bias)
    return (
        f"left ↔ above, right ↔ below; alibi2d's bias is {'unchanged' if unchanged else 'changed'} by the "
        "transpose, so with the mirrors every answer looks like every other"
    )


@exercise(
    "08.7",
    "resampling a table with a class token's row",
    hint="return a tensor [1 + gh'·gw', D]: the class token's row first, then the resized grid",
)
def _resample_with_cls(answer) -> str:
    import torch.nn.functional as F

    from minivit.posenc import resample

    f = function(answer, "(table, old_grid, new_grid)")
    g = torch.Generator().manual_seed(0)
    resizes = set()
    for old, new in (((3, 3), (6, 6)), ((6, 6), (4, 4)), ((2, 4), (5, 3))):
        table = torch.randn(1 + old[0] * old[1], 8, generator=g)
        # DeiT resizes without antialiasing, timm's resample_abs_pos_embed with it by default: both pass
        wants = {
            aa: resample(table, old, new, num_prefix_tokens=1, antialias=aa).double() for aa in (False, True)
        }
        want = wants[False]
        got = tensor(
            f(table.clone(), old, new), "the class token's row, then one row per new patch", tuple(want.shape)
        )
        expect(
            same(got[0], table[0].double()),
            f"for {old} → {new} the class token's row changed",
            "the class token's row is not on the grid: keep it apart and put it back first",
        )
        image = table[1:].T.reshape(1, 8, *old)
        corners = F.interpolate(image, size=new, mode="bicubic", align_corners=True).reshape(8, -1).T.double()
        expect(
            not same(got[1:], corners),
            f"for {old} → {new} your resize aligns the corners",
            "DeiT, timm and minivit resize with align_corners=False",
        )
        linear = F.interpolate(image, size=new, mode="bilinear").reshape(8, -1).T.double()
        expect(
            not same(got[1:], linear, atol=1e-5),
            f"for {old} → {new} your resize is bilinear",
            "DeiT and timm resize bicubically: mode='bicubic'",
        )
        matches = [aa for aa, w in wants.items() if same(got, w, atol=1e-5)]
        expect(
            bool(matches),
            f"for {old} → {new}, " + differs(got, want, "entry"),
            "reshape the patch rows to (1, D, gh, gw), resize bicubically with align_corners=False "
            "(with or without antialias), flatten back to [gh'·gw', D]",
        )
        resizes.update(matches)
    how = "with antialiasing, timm's default" if resizes == {True} else "without antialiasing, as DeiT does"
    return (
        "the class token's row passes through as it is; the grid's rows are resized as an image with one "
        f"channel per dimension ({how})"
    )
