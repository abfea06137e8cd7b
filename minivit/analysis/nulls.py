"""Permutation nulls: a measure of N tokens in their own order against the same measure with the
order shuffled many times; and Holm's correction, for many such tests at once."""

from __future__ import annotations

import torch


def with_nulls(measures: dict, n: int, permutations: int, seed: int) -> dict:
    """Each measure(order) of N tokens in their own order, and over `permutations` shuffles of it:
    {name: value, name + "_null": [mean, 95th percentile], name + "_p": share of the null at or
    above the value, the value itself counted}."""
    if not isinstance(permutations, int) or permutations < 1:
        raise ValueError(f"permutations={permutations!r}: give a whole number >= 1 (e.g. 1000)")
    g = torch.Generator().manual_seed(seed)
    orders = [torch.randperm(n, generator=g) for _ in range(permutations)]
    out: dict = {}
    for name, measure in measures.items():
        value = measure(torch.arange(n))
        null = torch.tensor([measure(o) for o in orders], dtype=torch.float64)
        out[name] = value
        out[name + "_null"] = [null.mean().item(), torch.quantile(null, 0.95).item()]
        out[name + "_p"] = ((null >= value - 1e-12).sum().item() + 1) / (permutations + 1)
    return out


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down correction for many tests at once: each p-value adjusted so that calling
    every adjusted p below alpha significant keeps the chance of any wrong call below alpha (the
    family-wise error). The smallest of m p-values is multiplied by m, the next by m - 1, ...,
    each kept at least as large as the one before and at most 1."""
    p = [float(x) for x in pvalues]
    if any(not 0 <= x <= 1 for x in p):
        raise ValueError(f"p-values must lie in [0, 1]; got {[x for x in p if not 0 <= x <= 1][:3]}")
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(sorted(range(len(p)), key=lambda i: p[i])):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted
