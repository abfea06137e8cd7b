"""Checks for lesson 10 (position without a grid)."""

from __future__ import annotations

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    indices,
    number,
    whole,
)


@exercise("10.4", "the σ = 0.02 seed whose k-means groups miss the modules", hint="answer a seed")
def _bad_seed(answer) -> str:
    from minivit.experiments import recorded

    seed = whole(answer, "answer the seed, a whole number")
    runs = {r["seed"]: r for r in recorded("network.json")["runs"] if r["arm"] == "0.02"}
    expect(seed in runs, f"there is no σ = 0.02 run with seed {seed}", f"the seeds: {sorted(runs)}")

    def margin(r):
        return r["recovery"]["ari"] - r["recovery"]["ari_null"][1]

    r = runs[seed]
    expect(
        margin(r) == min(margin(x) for x in runs.values()),
        f"seed {seed}'s ARI {r['recovery']['ari']:.2f} is {margin(r):+.2f} above its null's 95th percentile",
        "compare each σ = 0.02 run's run['recovery']['ari'] with run['recovery']['ari_null'][1]",
    )
    return (
        f"seed {seed}: ARI {r['recovery']['ari']:.2f}, no more than its null's 95th percentile, though "
        f"within − between is {r['recovery']['within_between']:.2f}: alike vectors, not in 4 round clusters"
    )


@exercise("10.5", "within − between", hint="return a number")
def _within_between(answer) -> str:
    from minivit import analysis

    f = function(answer, "(similarity, modules)")
    g = torch.Generator().manual_seed(0)
    for n, modules in ((12, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]), (7, [1, 0, 1, 0, 0, 2, 2])):
        vectors = torch.randn(n, 5, generator=g)
        sim = analysis.cosine_similarity(vectors)  # ones on the diagonal
        mod = torch.tensor(modules)
        want = analysis.within_between(sim, mod)
        got = number(f(sim.clone(), mod.clone()), "return a number")
        same_ = mod[:, None] == mod[None, :]
        with_self = (sim[same_].mean() - sim[~same_].mean()).item()
        if abs(got - with_self) < 1e-6:
            raise Wrong(
                f"you give {got:.4f}, which counts each token's similarity with itself as within",
                "leave out the diagonal: two *different* tokens of one module",
            )
        expect(
            abs(got - want) < 1e-6,
            f"for {n} tokens you give {got:.4f}, within − between is {want:.4f}",
            "mean similarity over pairs of different tokens of one module, minus the mean over pairs of two "
            "modules",
        )
    return "the within − between of analysis.module_recovery: near 0 for a table blind to the modules"


@exercise("10.6", "an order that sorts the tokens by module", hint="return a tensor of token indices [N]")
def _sort_order(answer) -> str:
    f = function(answer, "(modules)")
    g = torch.Generator().manual_seed(0)
    for n, k in ((32, 4), (9, 3), (5, 5)):
        modules = torch.randint(k, (n,), generator=g)
        returned = f(modules.clone())
        hint = "return indices (as argsort does), not the sorted modules: sim[order][:, order] is then sorted"
        order = indices(returned, hint, n)
        expect(
            torch.equal(order.sort().values, torch.arange(n)),
            f"for {n} tokens the answer is not an order of the tokens 0..{n - 1}",
            hint,
        )
        laid = modules[order]
        runs = int((laid.diff() != 0).sum()) + 1  # stretches of one module
        expect(
            runs == len(modules.unique()),
            f"for {n} tokens, modules[order] splits a module: {laid.tolist()[:12]}",
            "token order[0] comes first: every token of one module must sit next to the others of its "
            "module, one module after another",
        )
    return "sorted by module the table's similarity shows its blocks on the diagonal, as in the reveal"
