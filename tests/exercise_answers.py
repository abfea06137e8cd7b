"""Answers to the checked exercises for `tests/test_exercises.py`: typical wrong ones, each of which its
check must refuse, and right ones in other forms (another dtype, container or formula), each of which
it must accept. Most wrong answers are the ones a learner solving every exercise blind tried (the 13
that were once accepted among them); each entry says what it gets wrong.

An answer that is a function of no arguments builds the answer (so that tables are drawn lazily); a
function of the exercise's arguments is the answer itself.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F

from minivit import analysis
from minivit.data import lst, shuffle_patches
from minivit.posenc.rope import rotate_pairs
from tests.exercise_forms import (
    as_float32,
    as_list,
    as_numpy,
    block_m,
    cell_one_hot,
    leading,
    mixup,
    puzzle_lines,
    solution,
    solution_as,
    view_key,
    within_offsets,
)

T = torch.tensor
G = torch.Generator


def randn(*shape, std=1.0, seed=0):
    return std * torch.randn(*shape, generator=G().manual_seed(seed))


def pooled_change(reduce=lambda d: d.abs().max(), features=lambda m, x: m.features(x)):
    def answer(model, images, perm):
        with torch.no_grad():
            d = features(model, shuffle_patches(images, model.config.patch_size, perm)) - features(
                model, images
            )
        return reduce(d).item()

    return answer


def self_entry(value):
    t = torch.zeros(2, 7, 7)
    t[:, 3, 3] = value
    return t


def causal(hidden=-math.inf, shown=0.0, dtype=torch.float32, diagonal=1):
    return lambda n: torch.full((n, n), hidden, dtype=dtype).triu(diagonal) + shown * torch.ones(n, n).tril()


def spread(a):
    phi = math.exp(-(a**2) / 2) / math.sqrt(2 * math.pi)
    return math.sqrt(1 - 2 * a * phi / math.erf(a / math.sqrt(2)))


def drawn_spread(a):
    t = torch.empty(10**6)
    torch.nn.init.trunc_normal_(t, std=1.0, a=-a, b=a, generator=G().manual_seed(0))
    return t.std().item()


def uniform_window(distance, per_query=True, self_too=True):
    def answer(grid, radius):
        rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1])).double()
        d = distance(rc[:, None, :] - rc[None, :, :])
        near = (d <= radius) & ((d > 0) | self_too)
        if not per_query:
            return (d * near).sum().item() / near.sum().item()
        return ((d * near).sum(1) / near.sum(1)).mean().item()

    return answer


EUCLID = lambda o: o.norm(dim=-1)  # noqa: E731


def relative_bias(order="qk", swap=False, clamp=True, columns_first=False):
    """A clipped relative bias by hand, right with the defaults; each option a learner's slip."""

    def answer(table, grid, clip):
        rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1]))
        if columns_first:
            rc = torch.cartesian_prod(torch.arange(grid[1]), torch.arange(grid[0])).flip(-1)
        off = rc[:, None, :] - rc[None, :, :] if order == "qk" else rc[None, :, :] - rc[:, None, :]
        off = (off.clamp(-clip, clip) if clamp else off) + clip
        a, b = (off[..., 1], off[..., 0]) if swap else (off[..., 0], off[..., 1])
        return table[:, a, b]

    return answer


def rope_score(rotate_query=False, rotate_key=True):
    def answer(encoding, q, k, grid):
        n = grid[0] * grid[1]
        qs, ks = q.expand(1, encoding.heads, n, len(q)), k.expand(1, encoding.heads, n, len(k))
        qr, kr = encoding.rotate(qs, ks, grid, 0)
        return ((qr[0, 0] if rotate_query else q) * (kr[0, 0] if rotate_key else k)).sum(-1)

    return answer


def axial(dr, dc, base, factor=2.0, f=math.cos, step=4, pairs=4):
    return factor * sum(
        f(base ** (-step * i / 16) * dc) + f(base ** (-step * i / 16) * dr) for i in range(pairs)
    )


def mirrored(flip):
    return lambda grid: torch.arange(grid[0] * grid[1]).view(*grid).flip(flip).reshape(-1)


def first_grid_rows(table, old, new):
    d = table.shape[1]
    image = table[: old[0] * old[1]].T.reshape(1, d, *old)
    return torch.cat([table[:1], F.interpolate(image, size=new, mode="bicubic").reshape(d, -1).T])


def resized(mode="bicubic", cls="first", **options):
    def answer(table, old, new):
        d = table.shape[1]
        grid = F.interpolate(table[1:].T.reshape(1, d, *old), size=new, mode=mode, **options)
        rows = grid.reshape(d, -1).T
        return {"first": torch.cat([table[:1], rows]), "last": torch.cat([rows, table[:1]])}[cls]

    return answer


def flops(
    params_factor=6,
    attention=lambda t, d, depth: 12 * t**2 * d * depth,
    tokens=lambda c: c.grid[0] * c.grid[1],
):
    def answer(config):
        from minivit import ViT

        p = sum(x.numel() for x in ViT(config).parameters())
        t = tokens(config)
        return params_factor * p * t + attention(t, config.dim, config.depth)

    return answer


def within(reduce=torch.mean, between="other modules", sign=1.0):
    def answer(similarity, modules):
        same = modules[:, None] == modules[None, :]
        off = ~torch.eye(len(modules), dtype=torch.bool)
        far = ~same if between == "other modules" else off
        return (sign * (reduce(similarity[same & off]) - reduce(similarity[far]))).item()

    return answer


def kinds(rule):
    return lambda grid, k: rule(grid[0], grid[1], k)


def orbit_share(maps):
    def answer(g):
        cells = [(r, c) for r in range(g) for c in range(g)]
        return len({frozenset(m(r, c, g - 1) for m in maps) for r, c in cells}) / g**2

    return answer


IDENTITY = lambda r, c, m: (r, c)  # noqa: E731
MIRROR_LR = lambda r, c, m: (r, m - c)  # noqa: E731
TURNS = [IDENTITY, lambda r, c, m: (c, m - r), lambda r, c, m: (m - r, m - c), lambda r, c, m: (m - c, r)]


def spiral(rule):
    return lambda k: rule(k)


def patch_shuffle(*, inverse=False, columns=False, naive=False, size=None):
    """shuffle_patches by hand, right with the defaults; each option a learner's slip."""

    def answer(images, patch_size, perm):
        b, c, h, w = images.shape
        p = size or patch_size
        gh, gw = h // p, w // p
        if naive:  # a reshape that does not cut out patches
            return images.reshape(b, c, gh * gw, p * p)[:, :, perm].reshape(b, c, h, w)
        axes = (0, 4, 2, 1, 3, 5) if columns else (0, 2, 4, 1, 3, 5)
        x = images.reshape(b, c, gh, p, gw, p).permute(*axes)
        grid = x.shape[1:3]
        x = x.reshape(b, gh * gw, c, p, p)
        if inverse:
            out = torch.empty_like(x)
            out[:, perm] = x
        else:
            out = x[:, perm]
        back = (0, 3, 2, 4, 1, 5) if columns else (0, 3, 1, 4, 2, 5)
        return out.reshape(b, *grid, c, p, p).permute(*back).reshape(b, c, h, w)

    return answer


def unfolded_shuffle(images, patch_size, perm):
    b, c, h, w = images.shape
    cols = F.unfold(images, patch_size, stride=patch_size)  # (B, C·p·p, N)
    return F.fold(cols[:, :, perm], (h, w), patch_size, stride=patch_size)


def numpy_shuffle(images, patch_size, perm):
    x, p = images.numpy(), patch_size
    gw = x.shape[3] // p
    out = np.empty_like(x)
    for i, j in enumerate(np.asarray(perm)):
        (r, c), (r2, c2) = divmod(i, gw), divmod(int(j), gw)
        out[..., r * p : (r + 1) * p, c * p : (c + 1) * p] = x[
            ..., r2 * p : (r2 + 1) * p, c2 * p : (c2 + 1) * p
        ]
    return out


def row_entropy(log=torch.log, sign=-1.0, axis=-1, mean=False):
    """The entropy of each row, right with the defaults; each option a learner's slip."""

    def answer(w):
        terms = torch.where(w > 0, w * log(w.clamp_min(1e-300)), torch.zeros_like(w))
        return sign * (terms.mean(axis) if mean else terms.sum(axis))

    return answer


def numpy_entropy(w):
    return -np.where(w > 0, w * np.log(np.where(w > 0, w, 1)), 0).sum(-1)


def fast_pairs(pairs=lambda d: d // 4, rate=lambda b, i, d: b ** (-4 * i / d), turn=2 * math.pi, axes=1):
    """The pairs of one axis that repeat within the grid, right with the defaults."""
    return lambda d, b, s: axes * sum(turn / rate(b, i, d) < s for i in range(pairs(d)))


def structure(*, cosine=True, distance=EUCLID, sign=-1.0, self_pairs=False):
    """The structure score by hand, right with the defaults; each option a learner's slip."""

    def answer(table, grid):
        t = F.normalize(table.double(), dim=-1) if cosine else table.double()
        rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1])).double()
        d = distance(rc[:, None, :] - rc[None, :, :])
        keep = torch.ones_like(d, dtype=torch.bool) if self_pairs else ~torch.eye(len(rc), dtype=torch.bool)
        x, y = (t @ t.T)[keep], sign * d[keep]
        return torch.corrcoef(torch.stack([x, y]))[0, 1].item()

    return answer


def numpy_structure(table, grid):
    t = table.numpy().astype(np.float32)
    t = t / np.linalg.norm(t, axis=1, keepdims=True)
    rc = np.array([(r, c) for r in range(grid[0]) for c in range(grid[1])], dtype=float)
    d = np.linalg.norm(rc[:, None] - rc[None], axis=-1)
    i, j = np.triu_indices(len(rc), 1)
    return float(np.corrcoef((t @ t.T)[i, j], -d[i, j])[0, 1])


def pair_counts(*, clamp=True, self_pairs=True, ordered=True, swap=False):
    """How many pairs read each entry of a clipped table, right with the defaults."""

    def answer(grid, clip):
        side = 2 * clip + 1
        counts = np.zeros((side, side))
        cells = [(r, c) for r in range(grid[0]) for c in range(grid[1])]
        for i, (r, c) in enumerate(cells):
            for j, (r2, c2) in enumerate(cells):
                if (i == j and not self_pairs) or (j < i and not ordered):
                    continue
                dr, dc = r - r2, c - c2
                if not clamp and max(abs(dr), abs(dc)) > clip:
                    continue
                dr, dc = (max(-clip, min(clip, v)) for v in (dr, dc))
                a, b = (dc, dr) if swap else (dr, dc)
                counts[a + clip, b + clip] += 1
        return counts

    return answer


def rope_closed(sign=-1.0, halves=False, exponent=-2.0, real=True, sine=True):
    """RoPE's score from the formula, right with the defaults; each option a learner's slip."""

    def answer(q, k, offset, base):
        d = len(q)
        theta = base ** (exponent * torch.arange(d // 2, dtype=torch.float64) / d)
        if halves:
            qc, kc = torch.complex(q[: d // 2], q[d // 2 :]), torch.complex(k[: d // 2], k[d // 2 :])
        else:
            qc, kc = torch.complex(q[0::2], q[1::2]), torch.complex(k[0::2], k[1::2])
        terms = qc * kc.conj() if sine else (qc.real * kc.real + qc.imag * kc.imag).cdouble()
        total = (terms * torch.exp(sign * 1j * offset * theta)).sum()
        return total.real.item() if real else abs(total.item())

    return answer


def rope_by_turns(q, k, offset, base):
    """The rotated q (at 0) and k (at offset), turned by hand with cos and sin, in float32."""
    d = len(q)
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    a = offset * theta
    k1, k2 = k.float()[0::2], k.float()[1::2]
    turned = torch.stack([k1 * a.cos() - k2 * a.sin(), k1 * a.sin() + k2 * a.cos()], -1).flatten()
    return float(q.float() @ turned)


def grid_moves(*, square_only=True, unique=True, mirrors=True, turns=True, identity=True):
    """The mirrors and turns of a grid as permutations, right with the defaults."""

    def answer(grid):
        cells = torch.arange(grid[0] * grid[1]).view(*grid)
        moves = [cells] if identity else []
        if mirrors:
            moves += [cells.flip(0), cells.flip(1)]
        if turns:
            moves += [cells.flip(0, 1)]
        if grid[0] == grid[1] or not square_only:
            if turns:
                moves += [cells.T.flip(0), cells.T.flip(1)]
            if mirrors:
                moves += [cells.T, cells.T.flip(0, 1)]
        perms = [m.reshape(-1) for m in moves]
        if unique:
            perms = [torch.tensor(p) for p in sorted({tuple(p.tolist()) for p in perms})]
        return perms

    return answer


def distance_keeping_search(grid):
    """Every permutation of the patches that keeps all distances, by a search over images of two cells."""
    rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1])).double()
    d = torch.cdist(rc, rc)
    found = []
    for candidate in grid_moves(square_only=False, unique=False)(grid):
        if sorted(candidate.tolist()) == list(range(len(rc))) and torch.equal(d[candidate][:, candidate], d):
            if not any(torch.equal(candidate, f) for f in found):
                found.append(candidate)
    return torch.stack(found)


def jaccard(*, blanks=False, query=True, cells=True, similarity=False, union="sets"):
    """The Jaccard distance of two puzzles, right with the defaults; each option a learner's slip."""

    def answer(a, b):
        def pairs(p):
            kept = [(i, v) for i, v in enumerate(p.tolist()) if (v != 0 or blanks) and (v != 5 or query)]
            return {
                (i, v) if cells else (v, sum(1 for _, w in kept[:n] if w == v))
                for n, (i, v) in enumerate(kept)
            }

        sa, sb = pairs(a), pairs(b)
        size = len(sa | sb) if union == "sets" else len(sa) + len(sb)
        share = len(sa & sb) / size
        return share if similarity else 1 - share

    return answer


def jaccard_one_hot(a, b):
    fa, fb = (F.one_hot(p, 6)[:, 1:].float() for p in (a, b))
    both = (fa * fb).sum()
    return 1 - both / (fa.sum() + fb.sum() - both)


def unseen(rule):
    return lambda trained, new: rule(*trained, *new)


def unseen_by_count(trained, new):
    count = sum(r >= trained[0] or c >= trained[1] for r in range(new[0]) for c in range(new[1]))
    return Fraction(count, new[0] * new[1])


def cutmix_weight(*, rounded=True, clip="both", centred=True, partner=False, drawn=False):
    """The own label's weight after CutMix, right with the defaults; each option a learner's slip."""

    def answer(h, w, lam, cy, cx):
        if drawn:
            return lam
        bh, bw = h * math.sqrt(1 - lam), w * math.sqrt(1 - lam)
        if rounded:
            bh, bw = round(bh), round(bw)
        y0, x0 = (cy - bh // 2, cx - bw // 2) if centred else (cy, cx)
        y1, x1 = y0 + bh, x0 + bw
        if clip in ("both", "start"):
            y0, x0 = max(y0, 0), max(x0, 0)
        if clip in ("both", "end"):
            y1, x1 = min(y1, h), min(x1, w)
        own = 1 - (y1 - y0) * (x1 - x0) / (h * w)
        return 1 - own if partner else own

    return answer


def cutmix_by_mask(h, w, lam, cy, cx):
    bh, bw = round(h * math.sqrt(1 - lam)), round(w * math.sqrt(1 - lam))
    mask = torch.zeros(h, w)
    mask[max(cy - bh // 2, 0) : cy + bh - bh // 2, max(cx - bw // 2, 0) : cx + bw - bw // 2] = 1
    return 1 - mask.mean()


def within_between_np(s, m):
    same = m[:, None] == m[None, :]
    off = ~np.eye(len(m), dtype=bool)
    return s[same & off].mean() - s[~same].mean()


def exact_p(*, strict=False, share=True, below=False, sample=None, any_sizes=False):
    """The exact permutation p of within − between, right with the defaults."""

    def answer(similarity, modules):
        s, m = similarity.numpy(), modules.numpy()

        def score(labels):
            if any_sizes and len(set(labels.tolist())) < len(set(m.tolist())):
                return np.nan  # a module left empty
            return within_between_np(s, labels)

        seen = score(m)
        if any_sizes:  # every assignment of the labels, whatever the modules' sizes
            labellings = [np.array(p) for p in itertools.product(sorted(set(m.tolist())), repeat=len(m))]
        elif sample:
            rng = np.random.default_rng(0)
            labellings = [rng.permutation(m) for _ in range(sample)]
        else:
            labellings = [np.array(p) for p in set(itertools.permutations(m.tolist()))]
        scores = np.array([score(x) for x in labellings])
        scores = scores[~np.isnan(scores)]
        hits = (scores > seen + 1e-12) if strict else (scores >= seen - 1e-12)
        if below:
            hits = scores < seen - 1e-12
        return hits.mean() if share else hits.sum()

    return answer


def exact_p_all_orders(similarity, modules):
    """Every order of the tokens (N! of them): each distinct relabelling as often as any other."""
    s, m = similarity.numpy(), modules.numpy()
    seen = within_between_np(s, m)
    scores = [within_between_np(s, m[list(p)]) for p in itertools.permutations(range(len(m)))]
    return float(np.mean(np.array(scores) >= seen - 1e-12))


def own_share(rule):
    return lambda m, s, pw, pb: rule(m, s, pw, pb)


def attention_distance(*, renormalise=True, distance=EUCLID, prefix="first", coords="rows"):
    """Mean attention distance with a class token, right with the defaults."""

    def answer(weights, grid):
        w = weights[..., 1:, 1:] if prefix == "first" else weights[..., :-1, :-1]
        if renormalise:
            w = w / w.sum(-1, keepdim=True)
        a, b = (grid[0], grid[1]) if coords == "rows" else (grid[1], grid[0])
        rc = torch.cartesian_prod(torch.arange(a), torch.arange(b)).double()
        d = distance(rc[:, None, :] - rc[None, :, :])
        return (w * d).sum(-1).mean(dim=(0, 2))

    return answer


def four_terms(*, order=(0, 1, 2, 3), scale="head", transpose=False, keys=None):
    """The four terms of a score, right with the defaults; each option a learner's slip."""

    def answer(c, e, wq, wk):
        k_w = wq if keys == "wq" else wk
        parts = [(c, c), (c, e), (e, c), (e, e)]
        terms = [(a @ wq.T) @ (b @ k_w.T).T for a, b in parts]
        if transpose:
            terms = [t.T for t in terms]
        width = {"head": wq.shape[0], "model": wq.shape[1], None: 1}[scale]
        return torch.stack([terms[i] for i in order]) / math.sqrt(width)

    return answer


def pope_score(*, length=F.softplus, phase=-1.0, direction=1.0, wave=torch.cos, attention=False):
    """PoPE's score from the formula, right with the defaults; each option a learner's slip."""

    def answer(q, k, offset, theta, delta):
        turn = direction * (theta @ offset.to(theta.dtype))
        scale = math.sqrt(2 * len(q)) if attention else 1.0
        return (length(q) * length(k) * wave(turn + phase * delta)).sum().item() / scale

    return answer


def pope_complex(q, k, offset, theta, delta):
    zq = F.softplus(q) * torch.exp(1j * (theta @ offset))
    zk = F.softplus(k) * torch.exp(1j * delta)  # the key at 0, with its phase
    return (zq * zk.conj()).sum().real


# (exercise id, a wrong answer, what it gets wrong)
REFUSED = [
    ("00.2", lambda m, x, p: 0.0, "the value a cls model without position gives"),
    ("00.2", pooled_change(features=lambda m, x: m(x)), "the logits, not the pooled output"),
    ("00.2", pooled_change(reduce=lambda d: d.abs().mean()), "the mean change, not the largest"),
    ("00.2", pooled_change(reduce=lambda d: d.max()), "the signed largest change"),
    ("00.2", pooled_change(features=lambda m, x: m.tokens(x)[0]), "every token, not the pooled output"),
    ("00.3", ((6, 6), 36), "every patch, not those of a cell"),
    ("00.3", ((4, 4), 4), "a 4×4 grid"),
    ("00.3", ((6, 6), 9), "the cells, not the patches of one"),
    ("00.3", (36, 4), "the grid as one number"),
    ("00.5", {"none", "alibi2d"}, "alibi2d's bias changes with a shuffle"),
    ("00.5", {"none", "relative"}, "an untrained relative table is not zero"),
    ("00.5", set(), "the model without an encoding left out"),
    ("00.5", {"none", "rope1d"}, "RoPE turns by position"),
    ("01.1", math.sqrt(128), "the inverse"),
    ("01.1", 1 / 128, "d, not √d"),
    ("01.1", 1 / math.sqrt(32), "the lesson's head width"),
    ("01.1", -1 / math.sqrt(128), "the sign"),
    ("01.1", 0.1, "one digit"),
    ("01.4", lambda n: torch.zeros(n, n), "no mask"),
    ("01.4", lambda n: torch.ones(n, n, dtype=torch.bool).tril(), "a boolean mask"),
    ("01.4", causal(hidden=-1.0), "−1 hides nothing"),
    ("01.4", causal(hidden=math.inf), "+inf"),
    ("01.4", lambda n: torch.full((n, n), -math.inf).tril(), "0 and −inf swapped"),
    ("01.4", causal(shown=1.0), "1 where a key is seen"),
    ("01.5", lambda w, t: w ** (1 / t), "not renormalised"),
    ("01.5", lambda w, t: (w / t).softmax(-1), "the weights taken as logits"),
    ("01.5", lambda w, t: (w.log() * t).softmax(-1), "logits times T"),
    ("01.5", lambda w, t: w, "the weights unchanged"),
    (
        "01.5",
        lambda w, t: (w ** (1 / t)) / (w ** (1 / t)).sum(0, keepdim=True),
        "normalised over the wrong axis",
    ),
    ("01.5", analysis.with_temperature, "the package's own function"),
    ("01.5", lambda w, t: analysis.with_temperature(w, t), "calls the package's own function"),
    ("02.1", 6, "where it peaks again"),
    ("02.1", 1, "the first offset"),
    ("02.1", 0, "no offset"),
    ("02.1", "4", "text"),
    ("02.2", (0, 1), "transposed"),
    ("02.2", (7, 0), "the far corner"),
    ("02.2", 8, "the raster index"),
    ("02.2", (0, 6), "the neighbour the exercise leaves out"),
    ("02.3", lambda t, g, s: t.view(g[1], g[0], -1)[:s, :s].reshape(s * s, -1), "the grid read as (gw, gh)"),
    ("02.3", lambda t, g, s: t.view(*g, -1)[:s, :s].transpose(0, 1).reshape(s * s, -1), "column-major"),
    ("02.3", lambda t, g, s: t.view(*g, -1)[-s:, -s:].reshape(s * s, -1), "the bottom-right corner"),
    ("02.3", lambda t, g, s: t.view(*g, -1)[:s].reshape(-1, t.shape[1]), "whole rows"),
    ("02.4", lambda r, c, s: r * c / s, "a product"),
    ("02.4", lambda r, c, s: r + c + s, "the self part added"),
    ("02.4", lambda r, c, s: (r + c) / 2, "an average"),
    ("02.4", lambda r, c, s: r + c - 2 * s, "the self part twice"),
    ("02.4", lambda r, c, s: r + c - s / 2, "half the self part"),
    ("02.5", lambda: 5 * torch.eye(32), "even: b = 0"),
    ("02.5", lambda: block_m(randn(16), randn(16, seed=1), symmetric=True), "symmetric blocks"),
    ("02.5", lambda: block_m(randn(16), randn(16, seed=1), halves=True), "blocks on pairs (i, i + D/2)"),
    ("02.5", lambda: torch.diag(randn(32)), "a random diagonal"),
    ("02.5", lambda: torch.full((32, 32), math.nan), "NaN"),
    ("03.7", lambda a: 0.88, "the lesson's number whatever the cut"),
    ("03.7", lambda a: 1.0, "the cut forgotten"),
    ("03.7", lambda a: spread(a) ** 2, "the variance"),
    ("03.7", lambda a: math.erf(a / math.sqrt(2)), "the mass kept"),
    ("03.7", lambda a: 0.02 * spread(a), "times σ = 0.02"),
    ("03.7", 0.880, "a number, not a function"),
    ("03.8", lambda s, d: s**2 * d, "the squared norm"),
    ("03.8", lambda s, d: s * d, "σ · dim"),
    ("03.8", lambda s, d: math.sqrt(d), "σ forgotten"),
    ("03.8", lambda s, d: s * math.sqrt(d / 2), "√(dim/2)"),
    ("03.8", lambda s, d: s * 8, "width 64 hard-coded"),
    ("03.9", lambda: F.one_hot(torch.arange(36) // 6, 6).float(), "the row, not the cell"),
    ("03.9", lambda: torch.eye(36), "one vector per position"),
    ("03.9", lambda: torch.ones(36, 8), "a constant table"),
    ("03.9", lambda: cell_one_hot(cell=3), "cells of 3×3 patches"),
    ("03.9", lambda: torch.cartesian_prod(torch.arange(6), torch.arange(6)).float(), "raster coordinates"),
    ("04.1", 1.504, "a constant rate"),
    ("04.1", math.log(15), "the reach forgotten"),
    ("04.1", 0.333, "inverted"),
    ("04.1", 3.070, "ln 16"),
    ("04.1", 2.9, "rounded down"),
    ("04.3", relative_bias(swap=True), "row and column offsets swapped"),
    ("04.3", relative_bias(columns_first=True), "patches in column-major order"),
    ("04.3", lambda t, g, c: torch.zeros(t.shape[0], g[0] * g[1], g[0] * g[1]), "zeros"),
    ("04.3", relative_bias(order="kq", swap=True), "mirrored and swapped"),
    ("04.6", lambda: randn(2, 7, 7, std=0.01), "random, std 0.01 (once accepted)"),
    ("04.6", lambda: randn(2, 7, 7, std=0.005), "random, std 0.005 (once accepted)"),
    ("04.6", lambda: randn(2, 7, 7, std=1e-3), "random, std 1e-3 (once accepted)"),
    ("04.6", lambda: randn(2, 7, 7, std=1e-6), "random, std 1e-6 (once accepted)"),
    ("04.6", lambda: 1 + randn(2, 7, 7, std=0.01), "ones plus noise (once accepted)"),
    ("04.6", lambda: self_entry(0.05), "a self entry of 0.05 (once accepted)"),
    ("04.6", lambda: self_entry(0.01), "a self entry of 0.01 (once accepted)"),
    ("04.6", lambda: torch.arange(7.0)[:, None].expand(2, 7, 7), "rows by Δr"),
    ("04.6", lambda: torch.full((2, 7, 7), -math.inf), "−inf"),
    ("05.3", lambda b, s, d: b * s ** ((d - 2) / d), "exponent inverted"),
    ("05.3", lambda b, s, d: b / s ** (d / (d - 2)), "the wrong direction"),
    ("05.3", lambda b, s, d: b**s, "base to the s"),
    ("05.3", lambda b, s, d: b, "unchanged"),
    ("05.3", lambda b, s, d: b * s ** (d / 2), "s^(d/2)"),
    ("05.4", rope_score(rotate_query=True, rotate_key=False), "the query rotated, not the key"),
    ("05.4", rope_score(rotate_key=False), "nothing rotated"),
    ("05.4", lambda e, q, k, g: rope_score()(e, q, k, g).flip(0), "the patches in reverse order"),
    ("05.4", lambda e, q, k, g: torch.ones(g[0] * g[1], g[0] * g[1]), "a matrix"),
    ("05.5", lambda dr, dc, b: axial(dr, dc, b, step=2, pairs=8, factor=1.0), "1-D frequencies"),
    ("05.5", lambda dr, dc, b: axial(dr, dc, b, f=math.sin), "sin for cos"),
    ("05.5", lambda dr, dc, b: 16.0, "the score at offset 0"),
    ("05.5", lambda dr, dc, b: axial(dr, 0, b) * axial(0, dc, b) / 16, "a product of the axes"),
    ("06.1", lambda g: torch.arange(g[0] * g[1]).flip(0), "a half turn"),
    ("06.1", lambda g: torch.arange(g[0] * g[1]), "the identity"),
    ("06.1", lambda g: torch.arange(g[0] * g[1]).view(*g).roll(1, 1).reshape(-1), "a shift"),
    ("06.1", lambda g: torch.arange(g[0] * g[1]).view(*g).T.reshape(-1), "a transpose"),
    ("06.4", [0.8752, 1.4513], "only head 0 scaled"),
    ("06.4", [1.4533, 1.4533], "uniform"),
    ("06.4", [0.9, 1.4], "one decimal"),
    ("06.4", [0.0, 0.0], "all weight on the query"),
    ("06.4", 0.87, "one number"),
    ("06.5", lambda g, r: analysis.grid_distances(g).mean().item(), "the radius ignored"),
    ("06.5", uniform_window(EUCLID, per_query=False), "a mean over all pairs in reach"),
    ("06.5", uniform_window(EUCLID, self_too=False), "the query's own patch left out"),
    ("06.5", uniform_window(lambda o: o.abs().sum(-1)), "Manhattan distance"),
    ("06.5", uniform_window(lambda o: o.abs().amax(-1)), "Chebyshev distance"),
    ("07.4", lambda cells: torch.as_tensor(lst.forced(cells)) - 1, "labels 0-3"),
    ("07.4", lambda cells: torch.ones(len(cells)), "always 1"),
    ("07.4", lst.forced, "the package's own function"),
    ("07.4", lambda cells: lst.forced(cells), "calls the package's own function"),
    (
        "07.4",
        lambda cells: torch.full((len(cells),), int(lst.latin_squares()[0][0])),
        "the first square's symbol",
    ),
    (
        "07.5",
        lambda cells: [view_key(p, sort=True) for p in cells.tolist()],
        "row and column sorted (once accepted)",
    ),
    (
        "07.5",
        lambda cells: [view_key(p, blanks=False) for p in cells.tolist()],
        "blanks dropped (once accepted)",
    ),
    ("07.5", lambda cells: [view_key(p, sums=True) for p in cells.tolist()], "sums (once accepted)"),
    (
        "07.5",
        lambda cells: [view_key(p, sums=True, flat=True) for p in cells.tolist()],
        "sums as a number (once accepted)",
    ),
    (
        "07.5",
        lambda cells: [view_key(p, query=False) for p in cells.tolist()],
        "the query blanked (once accepted)",
    ),
    ("07.5", lst.views, "the package's own function"),
    (
        "07.5",
        lambda cells: [tuple(sorted(set(puzzle_lines(p)[1] + puzzle_lines(p)[2]))) for p in cells.tolist()],
        "symbols of row and column",
    ),
    ("07.6", lambda cells: ["ternary"] * len(cells), "all ternary"),
    ("07.6", lambda cells: [g.capitalize() for g in lst.grades(cells)], "calls the package's own function"),
    ("07.6", lst.grades, "the package's own function"),
    (
        "07.6",
        lambda cells: [
            {"binary": 2, "ternary": 3, "quaternary": 4}[g] for g in solution_as("07.6", list)(cells)
        ],
        "numbers",
    ),
    ("07.6", lambda cells: [g.upper() for g in solution_as("07.6", list)(cells)], "capitals"),
    ("08.5", lambda t, n: torch.arange(n) * n / t, "inverted"),
    ("08.5", lambda t, n: torch.arange(n), "no interpolation"),
    ("08.5", lambda t, n: torch.linspace(0, t, n), "linspace to the trained size"),
    ("08.5", lambda t, n: torch.arange(t), "the trained length"),
    ("08.5", lambda t, n: torch.arange(n) * t // n, "floor division"),
    ("08.5", lambda t, n: (torch.arange(n) + 0.5) * t / n - 0.5, "centres"),
    ("08.6", lambda y: y, "unchanged"),
    ("08.6", lambda y: (y + 1) % 4, "(y + 1) % 4"),
    ("08.6", lambda y: T([2, 3, 1, 0])[y], "a quarter turn"),
    ("08.6", lambda y: T([3, 2, 0, 1])[y], "another turn"),
    ("08.7", resized(mode="bilinear"), "bilinear"),
    ("08.7", resized(mode="nearest"), "nearest"),
    ("08.7", resized(cls="last"), "the class token's row last"),
    ("08.7", first_grid_rows, "the first gh·gw rows resized"),
    ("09.6", flops(attention=lambda t, d, depth: 12 * t * d * depth), "T not squared"),
    ("09.6", flops(tokens=lambda c: c.grid[0]), "T as the grid's side"),
    ("09.6", flops(attention=lambda t, d, depth: 12 * t**2 * d * 2), "L taken as the heads"),
    (
        "09.6",
        flops(params_factor=2, attention=lambda t, d, depth: 4 * t**2 * d * depth),
        "the forward pass only",
    ),
    ("09.7", mixup(swap=True), "λ and 1 − λ swapped"),
    ("09.7", mixup(partner=None), "the own label only"),
    ("09.7", mixup(over_classes=True), "flipped over the classes"),
    ("09.7", mixup(lam=0.5), "λ = 0.5 always"),
    ("09.7", mixup(combine=torch.maximum), "max instead of sum"),
    ("09.7", mixup(scale=0.9), "rows summing to 0.9"),
    ("09.8", 2327, "the factor 2"),
    ("09.8", 34.1, "the grid's side"),
    ("09.8", 6981, "L forgotten"),
    ("09.8", 1100, "5% low"),
    ("10.4", 2, "seed 2"),
    ("10.4", 3, "seed 3"),
    ("10.4", 4, "seed 4"),
    ("10.4", 5, "the number of seeds"),
    ("10.4", 0.02, "the arm"),
    ("10.5", within(between="all other pairs"), "between over every other pair"),
    ("10.5", within(sign=-1.0), "between − within"),
    ("10.5", lambda s, m: within()(s, m) / 2, "half of it"),
    ("10.5", within(reduce=torch.median), "medians"),
    ("10.5", lambda s, m: abs(within()(s, m)) + 1, "shifted"),
    ("10.6", lambda m: m.argsort().argsort(), "the inverse permutation"),
    ("10.6", lambda m: m, "the modules themselves"),
    ("10.6", lambda m: torch.arange(len(m)).flip(0), "the order reversed"),
    (
        "10.6",
        lambda m: torch.cat(
            [(m == v).nonzero()[:1, 0] for v in m.unique()] + [(m == v).nonzero()[1:, 0] for v in m.unique()]
        ),
        "one of each module first",
    ),
    ("11.2", kinds(lambda h, w, k: k * k), "k², whatever the grid"),
    ("11.2", kinds(lambda h, w, k: min(h, k) + min(w, k)), "a sum, not a product"),
    ("11.2", kinds(lambda h, w, k: min(h, 2 * k + 1) * min(w, 2 * k + 1)), "padding k, not k // 2"),
    ("11.2", kinds(lambda h, w, k: min(h, w, k) ** 2), "a square grid assumed"),
    ("11.5", lambda g: Fraction(3, 16), "3/16 always"),
    ("11.5", lambda g: 1 / 8, "one in 8"),
    ("11.5", lambda g: 1 / g**2, "chance"),
    ("11.5", orbit_share([IDENTITY, MIRROR_LR]), "the left-right mirror only"),
    ("11.5", orbit_share(TURNS), "turns only"),
    ("11.6", within_offsets(denominator="mean square"), "the mean square, not the variance (once accepted)"),
    ("11.6", within_offsets(denominator="std"), "divided by the standard deviation"),
    ("11.6", within_offsets(group="row"), "grouped by the row offset only"),
    ("11.6", lambda s, g: 0.0, "0 always"),
    ("11.6", analysis.offset_dependence, "the package's own function"),
    ("11.6", lambda s, g: analysis.offset_dependence(s, g)["fraction"], "calls the package's own function"),
    ("12.1", lambda e, g: torch.zeros(2, e.dim // e.heads, e.dim // e.heads), "zeros"),
    ("12.1", lambda e, g: solution_as("12.1", lambda a: a.transpose(-1, -2))(e, g), "J transposed"),
    ("12.1", lambda e, g: solution_as("12.1", lambda a: 0.5 * a)(e, g), "half the rates"),
    ("12.1", lambda e, g: solution_as("12.1", lambda a: a.abs())(e, g), "no J: not skew-symmetric"),
    ("12.2", leading(power=0), "no t²"),
    ("12.2", leading(power=1), "t, not t²"),
    ("12.2", lambda a, b, t: t**2 / 2 * a @ b, "AB alone"),
    ("12.2", lambda a, b, t: a * b - b * a, "an elementwise product"),
    ("12.2", lambda a, b, t: t**2 / 2 * (a @ b + b @ a), "the anticommutator"),
    ("12.2", lambda a, b, t: torch.zeros_like(a), "zeros"),
    ("12.3", lambda k: 3, "3 always"),
    ("12.3", lambda k: k - 1, "the last group"),
    ("12.3", lambda k: 3 * k // 4 + 1 if k % 4 == 0 else None, "1-based"),
    ("12.3", lambda k: None, "None always"),
    ("12.3", lambda k: 135, "an angle"),
    ("00.6", patch_shuffle(columns=True), "patches listed column by column"),
    ("00.6", patch_shuffle(naive=True), "a reshape that cuts rows of pixels, not patches"),
    ("00.6", patch_shuffle(size=8), "the patch size 8 hard-coded"),
    ("00.6", lambda x, p, perm: x, "the images unchanged"),
    ("00.6", shuffle_patches, "the package's own function"),
    ("00.6", lambda x, p, perm: shuffle_patches(x, p, perm), "calls the package's own function"),
    ("01.6", row_entropy(log=torch.log2), "in bits"),
    ("01.6", row_entropy(sign=1.0), "the minus sign left out"),
    ("01.6", row_entropy(axis=-2), "summed over the queries"),
    ("01.6", row_entropy(mean=True), "a mean over the keys"),
    ("01.6", lambda w: row_entropy()(w).exp(), "the perplexity"),
    ("01.6", analysis.entropy, "the package's own function"),
    ("01.6", lambda w: analysis.entropy(w), "calls the package's own function"),
    ("02.6", fast_pairs(axes=2), "both axes"),
    ("02.6", fast_pairs(turn=1.0), "1/ω, without the 2π"),
    ("02.6", lambda d, b, s: d // 4 - fast_pairs()(d, b, s), "the slow pairs"),
    ("02.6", lambda d, b, s: 1, "one always"),
    ("02.6", fast_pairs(rate=lambda b, i, d: b ** (-i / d)), "the exponent halved"),
    ("03.10", structure(cosine=False), "dot products, not cosines"),
    ("03.10", structure(sign=1.0), "plus the distance"),
    ("03.10", structure(distance=lambda o: o.abs().sum(-1)), "Manhattan distance"),
    ("03.10", structure(distance=lambda o: (o**2).sum(-1)), "the squared distance"),
    ("03.10", analysis.structure_score, "the package's own function"),
    ("03.10", lambda t, g: analysis.structure_score(t, g), "calls the package's own function"),
    ("04.7", pair_counts(self_pairs=False), "no pair of a patch with itself"),
    ("04.7", pair_counts(ordered=False), "each pair once"),
    ("04.7", pair_counts(swap=True), "rows and columns swapped"),
    ("04.7", lambda g, c: torch.ones(2 * c + 1, 2 * c + 1), "ones"),
    ("04.7", lambda g, c: torch.full((2 * c + 1, 2 * c + 1), float(g[0] * g[1])), "N for every entry"),
    ("05.6", rope_closed(sine=False), "the cosine part only"),
    ("05.6", rope_closed(halves=True), "pairs (i, i + d/2)"),
    ("05.6", rope_closed(exponent=-1.0), "θ_j = base^(−j/d)"),
    ("05.6", rope_closed(real=False), "the modulus, not the real part"),
    ("05.6", lambda q, k, offset, base: (q @ k).item(), "no rotation"),
    (
        "05.6",
        lambda q, k, offset, base: (
            rotate_pairs(q, 0 * q[::2])
            @ rotate_pairs(k, offset * base ** (-torch.arange(0, len(q), 2) / len(q)))
        ).item(),
        "rotate_pairs",
    ),
    ("06.6", grid_moves(mirrors=False), "turns only"),
    ("06.6", grid_moves(turns=False), "mirrors only"),
    ("06.6", grid_moves(identity=False), "the identity left out"),
    ("06.6", grid_moves(unique=False), "one permutation twice on a single row"),
    ("06.6", lambda g: torch.arange(g[0] * g[1]).view(*g).flip(1).reshape(-1), "one permutation, not a list"),
    ("06.6", lambda g: [torch.arange(g[0] * g[1]).view(*g).flip(1)], "a grid, not a permutation"),
    ("07.7", jaccard(similarity=True), "the similarity"),
    ("07.7", jaccard(query=False), "the query left out"),
    ("07.7", jaccard(cells=False), "symbols without their cells"),
    ("07.7", jaccard(union="sum"), "|A| + |B| for the union"),
    ("07.7", lambda a, b: 0.8, "a constant"),
    (
        "07.7",
        lambda a, b: lst.min_jaccard_distance(a[None], b[None]).item(),
        "calls the package's own function",
    ),
    ("08.8", unseen(lambda th, tw, nh, nw: 1 - th * tw / (nh * nw)), "no min: negative on a smaller grid"),
    ("08.8", unseen(lambda th, tw, nh, nw: max(0, 1 - th / nh)), "rows only"),
    ("08.8", unseen(lambda th, tw, nh, nw: nh * nw - min(th, nh) * min(tw, nw)), "a count, not a share"),
    ("08.8", unseen(lambda th, tw, nh, nw: min(th, nh) * min(tw, nw) / (nh * nw)), "the share seen"),
    ("08.8", unseen(lambda th, tw, nh, nw: 0.75), "3/4 always"),
    ("09.9", cutmix_weight(partner=True), "the partner's weight"),
    ("09.9", cutmix_weight(rounded=False), "the box's sides not rounded"),
    ("09.9", cutmix_weight(clip="none"), "the box not cut"),
    ("09.9", cutmix_weight(clip="end"), "cut at the far border only"),
    ("09.9", cutmix_weight(centred=False), "the box's corner at (cy, cx)"),
    ("10.7", exact_p(share=False), "a count, not a share"),
    ("10.7", exact_p(below=True), "the share below"),
    ("10.7", exact_p(sample=200), "a sample of 200 relabellings"),
    ("10.7", exact_p(any_sizes=True), "labellings of any module sizes"),
    ("10.7", lambda s, m: 0.05, "0.05 always"),
    ("10.8", own_share(lambda m, s, pw, pb: pw / (pw + pb)), "the probabilities alone"),
    ("10.8", own_share(lambda m, s, pw, pb: (s - 1) * pw), "the expected own inputs"),
    (
        "10.8",
        own_share(lambda m, s, pw, pb: (s - 1) * pw / ((s - 1) * pw + m * s * pb)),
        "every module counted as another",
    ),
    (
        "10.8",
        own_share(lambda m, s, pw, pb: 1 - (s - 1) * pw / ((s - 1) * pw + (m - 1) * s * pb)),
        "the share from other modules",
    ),
    ("10.8", own_share(lambda m, s, pw, pb: 1 / m), "one module in m"),
    ("11.7", attention_distance(distance=lambda o: o.abs().sum(-1)), "Manhattan distance"),
    ("11.7", attention_distance(prefix="last"), "the class token taken as the last token"),
    ("11.7", attention_distance(coords="columns"), "rows and columns swapped"),
    ("11.7", lambda w, g: attention_distance()(w, g).mean(), "one number for all heads"),
    ("11.7", analysis.mean_attention_distance, "the package's own function"),
    (
        "11.7",
        lambda w, g: analysis.mean_attention_distance(w, g, num_prefix_tokens=1),
        "calls the package's own function",
    ),
    ("11.8", four_terms(scale=None), "not divided by √Dh"),
    ("11.8", four_terms(scale="model"), "divided by √D"),
    ("11.8", four_terms(transpose=True), "transposed"),
    ("11.8", four_terms(keys="wq"), "keys made with wq"),
    ("11.8", four_terms(order=(3, 1, 2, 0)), "content·content and position·position swapped"),
    ("12.8", pope_score(length=lambda x: x), "no softplus"),
    ("12.8", pope_score(direction=-1.0), "the offset key minus query"),
    ("12.8", pope_score(attention=True), "divided by √(2 Dh)"),
    ("12.8", pope_score(length=F.relu), "relu for softplus"),
    ("12.8", pope_score(wave=torch.sin), "sin for cos"),
]

# (exercise id, a right answer in another form, which form)
ACCEPTED = [
    ("00.2", lambda m, x, p: solution_as("00.2", float)(m, x, list(p)), "perm as a list"),
    (
        "00.2",
        lambda m, x, p: torch.tensor(solution_as("00.2", float)(m, x, p), dtype=torch.float64),
        "a tensor",
    ),
    ("00.3", [[6, 6], 4], "lists"),
    ("00.3", ((6.0, 6.0), np.int64(4)), "floats and numpy"),
    ("00.5", ["none"], "a list"),
    ("00.5", frozenset({"none"}), "a frozenset"),
    ("01.1", 1 / math.sqrt(128), "exact"),
    ("01.1", torch.tensor(0.0884), "a tensor"),
    ("01.1", np.float32(0.08839), "numpy float32"),
    ("01.4", causal(hidden=-1e9), "−1e9 for −inf"),
    ("01.4", causal(dtype=torch.float64), "float64"),
    ("01.4", lambda n: np.triu(np.full((n, n), -np.inf), 1), "numpy"),
    ("01.5", lambda w, t: (w.log() / t).softmax(-1), "softmax(log w / T)"),
    ("01.5", lambda w, t: w.float() ** (1 / t) / (w.float() ** (1 / t)).sum(-1, keepdim=True), "float32"),
    ("02.1", 4.0, "a float"),
    ("02.1", torch.tensor(4), "a tensor"),
    ("02.1", np.int64(4), "numpy"),
    ("02.2", [1, 0], "a list"),
    ("02.2", (torch.tensor(1), torch.tensor(0)), "tensors from divmod"),
    ("02.2", torch.tensor([1, 0]), "a tensor"),
    ("02.2", np.array([1, 0]), "an array"),
    ("02.3", lambda t, g, s: t[(torch.arange(s)[:, None] * g[1] + torch.arange(s)).reshape(-1)], "by index"),
    ("02.3", solution_as("02.3", as_numpy), "numpy"),
    ("02.4", lambda r, c, s: (r - s) + c, "another order"),
    ("02.4", lambda r, c, s: np.float32(r + c - s), "numpy float32"),
    ("02.5", lambda: block_m(randn(16), randn(16, seed=1)), "random blocks"),
    ("02.5", lambda: block_m(randn(16), -randn(16, seed=1)).float(), "the blocks transposed, float32"),
    ("03.7", drawn_spread, "a million draws"),
    ("03.7", lambda a: torch.tensor(spread(a)), "a tensor"),
    ("03.8", lambda s, d: s * math.sqrt(d), "σ√dim"),
    ("03.8", lambda s, d: torch.tensor(s * math.sqrt(d - 0.5)), "σ√(dim − 1/2) as a tensor"),
    ("03.9", lambda: cell_one_hot(), "one-hot of the cell"),
    ("03.9", lambda: F.pad(cell_one_hot(), (0, 55)), "padded to 64"),
    ("03.9", lambda: cell_one_hot(column_major=True), "cells numbered down the columns"),
    (
        "03.9",
        lambda: cell_one_hot() @ randn(9, 16) + randn(36, 16, std=0.05, seed=1),
        "a vector per cell, noisy",
    ),
    ("04.1", 3, "3"),
    ("04.1", torch.tensor(2.999), "a tensor"),
    ("04.3", relative_bias(), "by hand"),
    ("04.3", lambda t, g, c: relative_bias()(t.double(), g, c), "float64"),
    ("04.6", torch.ones(2, 7, 7), "ones"),
    ("04.6", torch.tensor([1.0, -3.0])[:, None, None].expand(2, 7, 7), "a value per head"),
    ("04.6", torch.full((1, 2, 7, 7), 64.0, dtype=torch.float64), "[1, 2, 7, 7] in float64"),
    ("05.3", lambda b, s, d: math.exp(math.log(b) + d / (d - 2) * math.log(s)), "in logs"),
    ("05.3", lambda b, s, d: torch.tensor(b * s ** (d / (d - 2))), "a tensor"),
    ("05.4", solution_as("05.4", as_float32), "float32"),
    ("05.4", solution_as("05.4", as_list), "a list"),
    ("05.5", lambda dr, dc, b: axial(dc, dr, b), "rows and columns swapped"),
    ("05.5", lambda dr, dc, b: torch.tensor(axial(dr, dc, b)), "a tensor"),
    ("06.1", mirrored(1), "flip"),
    ("06.1", solution_as("06.1", as_list), "a list"),
    ("06.4", [0.8752, 1.4204], "four digits"),
    ("06.4", np.array([0.88, 1.42]), "numpy, two digits"),
    ("06.5", uniform_window(EUCLID), "pairs by hand"),
    ("06.5", solution_as("06.5", torch.tensor), "a tensor"),
    ("07.4", solution_as("07.4", as_list), "a list"),
    ("07.4", solution_as("07.4", lambda t: torch.as_tensor(t).float()), "floats"),
    ("07.5", lambda cells: [view_key(p) for p in cells.tolist()], "(query, row, column)"),
    ("07.5", lambda cells: [view_key(p, index=False) for p in cells.tolist()], "row and column with their 5"),
    (
        "07.5",
        lambda cells: ["".join(map(str, puzzle_lines(p)[1] + puzzle_lines(p)[2])) for p in cells.tolist()],
        "digits",
    ),
    ("07.6", solution_as("07.6", tuple), "a tuple"),
    ("07.6", solution_as("07.6", lambda g: [str(x) for x in g]), "a list comprehension"),
    ("08.5", solution_as("08.5", as_list), "a list"),
    ("08.5", lambda t, n: torch.arange(n, dtype=torch.float64) / n * t, "another order"),
    ("08.6", lambda y: T([2, 3, 0, 1])[y], "a table"),
    ("08.6", lambda y: ((y + 2) % 4).tolist(), "(y + 2) % 4 as a list"),
    ("08.7", resized(align_corners=False, antialias=True), "timm's antialiased resize"),
    (
        "08.7",
        lambda t, o, n: __import__("minivit").posenc.resample(t, o, n, num_prefix_tokens=1),
        "minivit's resample",
    ),
    ("09.6", flops(), "the rule"),
    ("09.6", lambda c: torch.tensor(float(flops()(c))), "a tensor"),
    ("09.7", mixup(dtype=torch.float32), "float32"),
    ("09.7", solution_as("09.7", as_list), "nested lists"),
    ("09.8", 1164, "rounded"),
    ("09.8", torch.tensor(1163.6), "a tensor"),
    ("10.4", 0.0, "a float"),
    ("10.4", np.int64(0), "numpy"),
    ("10.5", within(), "by masks"),
    ("10.5", lambda s, m: torch.tensor(within()(s, m)), "a tensor"),
    ("10.6", lambda m: m.argsort(stable=True), "stable argsort"),
    ("10.6", lambda m: sorted(range(len(m)), key=lambda i: int(m[i])), "a list"),
    ("11.2", kinds(lambda h, w, k: min(h, k) * min(w, k)), "min(gh, k) · min(gw, k)"),
    ("11.2", solution_as("11.2", float), "a float"),
    ("11.5", lambda g: float(solution_as("11.5", Fraction)(g)), "a float"),
    ("11.5", lambda g: torch.tensor(solution_as("11.5", float)(g)), "a tensor"),
    ("11.6", within_offsets(), "by hand"),
    ("11.6", lambda s, g: torch.tensor(within_offsets()(s.float(), g)), "float32 scores, a tensor"),
    ("12.1", solution_as("12.1", as_float32), "float32"),
    ("12.1", solution_as("12.1", as_numpy), "numpy"),
    (
        "12.2",
        lambda a, b, t: t**2 / 2 * (a.float() @ b.float() - b.float() @ a.float()),
        "float32 (once refused)",
    ),
    (
        "12.2",
        lambda a, b, t: 0.5 * torch.tensor(t) ** 2 * (a @ b - b @ a).float(),
        "t² in float32 (once refused)",
    ),
    (
        "12.2",
        lambda a, b, t: torch.zeros(a.shape).add_(t * t * 0.5 * (a @ b - b @ a).float()),
        "a float32 buffer (once refused)",
    ),
    ("12.2", lambda a, b, t: (t * t * 0.5 * (a @ b - b @ a)).numpy(), "numpy float64"),
    ("12.3", lambda k: 3 * k / 4 if k % 4 == 0 else None, "a float"),
    ("12.3", lambda k: np.int64(3 * k // 4) if k % 4 == 0 else None, "numpy"),
    ("00.6", unfolded_shuffle, "unfold and fold"),
    ("00.6", numpy_shuffle, "numpy, patch by patch"),
    ("00.6", lambda x, p, perm: solution("00.6")(x, p, perm.tolist()), "perm as a list"),
    ("01.6", lambda w: torch.special.entr(w).sum(-1), "torch.special.entr"),
    (
        "01.6",
        lambda w: -(w.float().clamp_min(1e-12) * w.float().clamp_min(1e-12).log()).sum(-1),
        "clamped, float32",
    ),
    ("01.6", lambda w: numpy_entropy(w.numpy()), "numpy"),
    ("02.6", lambda d, b, s: float(solution("02.6")(d, b, s)), "a float"),
    (
        "02.6",
        lambda d, b, s: int((2 * np.pi / b ** (-np.arange(d // 4) / (d / 4)) < s).sum()),
        "numpy, ω = base^(−i/(dim/4))",
    ),
    ("03.10", structure(), "every ordered pair i ≠ j"),
    ("03.10", numpy_structure, "numpy, float32"),
    ("04.7", pair_counts(), "counted in a loop"),
    ("04.7", lambda g, c: torch.as_tensor(pair_counts()(g, c)).long(), "integers"),
    ("05.6", rope_by_turns, "turned by hand, float32"),
    ("05.6", lambda q, k, o, b: torch.tensor(solution("05.6")(q, k, o, b)), "a tensor"),
    ("06.6", distance_keeping_search, "a search, as a tensor [K, N]"),
    ("06.6", lambda g: [p.tolist() for p in reversed(solution("06.6")(g))], "lists, in another order"),
    ("07.7", jaccard_one_hot, "one-hot features, a tensor"),
    ("07.7", jaccard(), "sets of pairs"),
    ("08.8", unseen_by_count, "counted, a Fraction"),
    ("08.8", lambda t, n: np.float32(solution("08.8")(t, n)), "numpy float32"),
    ("09.9", cutmix_by_mask, "a mask's mean"),
    (
        "09.9",
        lambda h, w, lam, cy, cx: Fraction(solution("09.9")(h, w, lam, cy, cx)).limit_denominator(10**6),
        "a Fraction",
    ),
    ("10.7", exact_p(), "distinct relabellings, numpy"),
    ("10.7", exact_p_all_orders, "every order of the tokens"),
    ("11.7", attention_distance(), "by hand"),
    ("11.7", lambda w, g: attention_distance()(w.float(), g).numpy(), "float32, numpy"),
    ("12.8", pope_complex, "complex numbers, a tensor"),
    (
        "12.8",
        lambda q, k, o, t, d: np.float32(pope_score()(q.float(), k.float(), o.float(), t.float(), d.float())),
        "float32",
    ),
    (
        "10.8",
        own_share(lambda m, s, pw, pb: Fraction((s - 1) * pw / ((s - 1) * pw + (m - 1) * s * pb))),
        "a Fraction",
    ),
    (
        "10.8",
        lambda m, s, pw, pb: np.float32(1 / (1 + (m - 1) * s * pb / ((s - 1) * pw))),
        "another formula, float32",
    ),
    ("11.8", four_terms(), "by hand"),
    (
        "11.8",
        lambda c, e, wq, wk: np.stack([t.float().numpy() for t in solution("11.8")(c, e, wq, wk)]),
        "float32, numpy",
    ),
]
