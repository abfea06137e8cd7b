"""Which tokens belong together: a table's token vectors [N, D] against known groups (a network's
modules, lesson 10): k-means clusters scored by the adjusted Rand index, similarity within groups
against between them, and rank correlation of similarity with the network's connections, each
against a permutation null (`module_recovery`)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.analysis.nulls import with_nulls
from minivit.analysis.tables import cosine_similarity


def kmeans(points: Tensor, k: int, *, restarts: int = 10, iterations: int = 100, seed: int = 0) -> Tensor:
    """Cluster labels [n] (0..k-1) of the rows of `points` [n, D]: Lloyd's k-means from k-means++
    starts (Arthur & Vassilvitskii 2007), the best of `restarts` by within-cluster sum of squares.
    A cluster left empty during an iteration is restarted at the point farthest from its centre.
    Kept rather than scikit-learn's `KMeans`: that draws its starts from NumPy's generator (a greedy
    k-means++), so on the same seed it finds other clusters and the recorded sweep's scores would move."""
    x = points.detach().double()
    n = len(x)
    if x.dim() != 2 or not torch.isfinite(x).all():
        raise ValueError(f"points must be finite rows [n, D], got shape {tuple(x.shape)}")
    if not 1 <= k <= n:
        raise ValueError(f"k={k}: give 1 <= k <= {n} (the number of points)")
    for name, value in (("restarts", restarts), ("iterations", iterations)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r}: give a whole number >= 1")
    g = torch.Generator().manual_seed(seed)
    best, best_cost = None, math.inf
    for _ in range(restarts):
        centres = x[torch.randint(n, (1,), generator=g)]
        for _ in range(k - 1):  # k-means++: the next centre drawn in proportion to squared distance
            d2 = torch.cdist(x, centres).min(1).values.square()
            weights = d2 if d2.sum() > 0 else torch.ones(n, dtype=x.dtype)
            centres = torch.cat([centres, x[torch.multinomial(weights, 1, generator=g)]])
        labels = torch.cdist(x, centres).argmin(1)
        for _ in range(iterations):
            for c in range(k):
                if (labels == c).any():
                    centres[c] = x[labels == c].mean(0)
                else:  # empty: restart it at the point farthest from its own centre
                    far = (x - centres[labels]).square().sum(1).argmax()
                    centres[c], labels[far] = x[far], c
            new = torch.cdist(x, centres).argmin(1)
            if torch.equal(new, labels):
                break
            labels = new
        cost = (x - centres[labels]).square().sum().item()
        if cost < best_cost - 1e-12:
            best, best_cost = labels, cost
    return best


def adjusted_rand_index(a: Tensor, b: Tensor) -> float:
    """Agreement of two partitions of the same items (Hubert & Arabie 1985): 1 when they are the same
    up to the names of the groups, 0 on average for unrelated ones (it can be negative). The formula
    written out: scikit-learn's `adjusted_rand_score` agrees to 1e-16 (tests/test_analysis.py) but
    not to the last bit, and is about 7x slower in a null of thousands of shuffles."""
    a, b = torch.as_tensor(a).long().flatten(), torch.as_tensor(b).long().flatten()
    if a.shape != b.shape or len(a) < 2:
        raise ValueError(f"give two labelings of the same items (at least 2), got {len(a)} and {len(b)}")
    _, a = torch.unique(a, return_inverse=True)
    _, b = torch.unique(b, return_inverse=True)
    table = torch.zeros(int(a.max()) + 1, int(b.max()) + 1, dtype=torch.float64)
    table.index_put_((a, b), torch.ones(len(a), dtype=torch.float64), accumulate=True)

    def pairs(t: Tensor) -> Tensor:
        return (t * (t - 1) / 2).sum()

    both, rows, cols = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = rows * cols / (len(a) * (len(a) - 1) / 2)
    top = (rows + cols) / 2
    if top == expected:  # both partitions trivial (one group each, or all singletons)
        return 1.0
    return ((both - expected) / (top - expected)).item()


def rank_correlation(a: Tensor, b: Tensor) -> float:
    """Spearman's rank correlation of two equally long sets of numbers: the Pearson correlation of
    their ranks (ties given their average rank, `scipy.stats.rankdata`). Written out rather than
    `scipy.stats.spearmanr`, which agrees to 1e-16 but not to the last bit."""
    from scipy.stats import rankdata  # imported here: scipy.stats takes seconds to import

    ra, rb = (torch.from_numpy(rankdata(x.detach().double().flatten().cpu().numpy()) - 1) for x in (a, b))
    if ra.shape != rb.shape:
        raise ValueError(f"give two sets of numbers of one length, got {len(ra)} and {len(rb)}")
    if (ra == ra[0]).all() or (rb == rb[0]).all():
        raise ValueError("a set of numbers that are all equal has no ranks to correlate")
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return (ra @ rb / (ra.norm() * rb.norm()).clamp_min(1e-300)).item()


def within_between(similarity: Tensor, modules: Tensor) -> float:
    """Mean similarity of two different tokens of one module minus that of two tokens of two modules."""
    modules = torch.as_tensor(modules)
    same = modules[:, None] == modules[None, :]
    off = ~torch.eye(len(modules), dtype=torch.bool)
    if not (same & off).any() or same.all():
        raise ValueError("within - between needs a module of two tokens or more, and two modules or more")
    s = similarity.double()
    return (s[same & off].mean() - s[~same].mean()).item()


def module_recovery(
    table: Tensor, modules: Tensor, weights: Tensor, *, permutations: int = 1000, seed: int = 0
) -> dict:
    """How well a table of token vectors [N, D] finds the modules of the network it was trained on,
    each measure with a permutation null (the same measure with the tokens' modules, or their places
    in the network, shuffled `permutations` times):

        within_between  mean cosine similarity inside a module minus between modules (null: modules
                        shuffled)
        ari             adjusted Rand index of k-means (as many clusters as modules, on the unit
                        vectors) against the modules (null: modules shuffled)
        connectivity    rank correlation over token pairs of cosine similarity and connection
                        strength |w_ij| + |w_ji| (null: tokens shuffled on the network)

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p": the share
    of the null at or above the value (with the value itself counted), "clusters": k-means labels}.
    """
    modules = torch.as_tensor(modules).long()
    n = len(modules)
    if table.dim() != 2 or len(table) != n or weights.shape != (n, n):
        raise ValueError(
            f"give a table [N, D], modules [N] and weights [N, N] of one N: got {tuple(table.shape)}, "
            f"{tuple(modules.shape)}, {tuple(weights.shape)}"
        )
    k = len(torch.unique(modules))
    sim = cosine_similarity(table).double()
    clusters = kmeans(F.normalize(table.detach().double(), dim=-1), k, seed=seed)
    strength = (weights.abs() + weights.abs().T).double()
    iu = torch.triu_indices(n, n, offset=1)

    def connectivity(order: Tensor) -> float:
        return rank_correlation(sim[iu[0], iu[1]], strength[order][:, order][iu[0], iu[1]])

    measures = {
        "within_between": lambda order: within_between(sim, modules[order]),
        "ari": lambda order: adjusted_rand_index(clusters, modules[order]),
        "connectivity": connectivity,
    }
    return {"clusters": clusters.tolist(), **with_nulls(measures, n, permutations, seed)}
