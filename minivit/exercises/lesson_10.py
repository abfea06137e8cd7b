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


def _within_between(similarity: torch.Tensor, modules: torch.Tensor) -> float:
    same = modules[:, None] == modules[None, :]
    off = ~torch.eye(len(modules), dtype=torch.bool)
    return (similarity[same & off].mean() - similarity[~same].mean()).item()


def _relabellings(modules: list[int]) -> list[list[int]]:
    """Every distinct arrangement of the labels `modules` over the tokens."""
    if not modules:
        return [[]]
    out = []
    for label in sorted(set(modules)):
        rest = list(modules)
        rest.remove(label)
        out += [[label, *r] for r in _relabellings(rest)]
    return out


def _exact_p(similarity: torch.Tensor, modules: torch.Tensor) -> float:
    seen = _within_between(similarity, modules)
    scores = [_within_between(similarity, torch.tensor(m)) for m in _relabellings(modules.tolist())]
    return sum(s >= seen - 1e-12 for s in scores) / len(scores)


@exercise(
    "10.7",
    "the exact permutation p of within − between",
    hint="return a number: the share of every relabelling of the tokens (the same module sizes) whose "
    "within − between is at least the true modules'",
)
def _exact_null(answer) -> str:
    f = function(answer, "(similarity, modules)")
    form = "return the share, one number from 0 to 1"
    g = torch.Generator().manual_seed(0)
    results = []
    for modules, strength in (
        ([0, 1, 0, 1, 1, 0, 0, 1], 1.5),
        ([2, 0, 1, 1, 0, 2], 0.2),
        ([0, 0, 1, 1, 1, 0, 2], 0.0),
    ):
        modules = torch.tensor(modules)
        x = torch.randn(len(modules), 4, generator=g, dtype=torch.float64)
        x += strength * torch.randn(int(modules.max()) + 1, 4, generator=g, dtype=torch.float64)[modules]
        x = x / x.norm(dim=1, keepdim=True)
        similarity = x @ x.T
        got = number(f(similarity.clone(), modules.clone()), form)
        want = _exact_p(similarity, modules)
        results.append((len(modules), len(_relabellings(modules.tolist())), want))
        if abs(got - want) <= 1e-6:
            continue
        sizes = "+".join(str(int((modules == m).sum())) for m in modules.unique())
        where = f"for {len(modules)} tokens in modules of {sizes}"
        n = len(_relabellings(modules.tolist()))
        seen = _within_between(similarity, modules)
        strict = sum(
            _within_between(similarity, torch.tensor(m)) > seen + 1e-12
            for m in _relabellings(modules.tolist())
        )
        expect(
            abs(got - strict / n) > 1e-6 or abs(want - strict / n) <= 1e-6,
            f"{where} you give {got:.4f}: your count leaves out the relabellings that tie with the true one",
            "count every relabelling whose value is at least the true one's: the true labelling is one of "
            "them, and so is any that only swaps the names of modules of one size",
        )
        expect(got <= 1, f"{where} you give {got:g}, more than 1", "a share: the count over the relabellings")
        expect(
            abs(got - (1 - want)) > 1e-6,
            f"{where} you give {got:.4f}, the share of relabellings below the true one",
            "the p is the share at least as large as the true value",
        )
        raise Wrong(
            f"{where} you give {got:.4f}; {n} relabellings give the exact share {want:.4f}",
            "enumerate every relabelling, not a sample; within is the mean over pairs of two different "
            "tokens of one module, between over pairs of two modules",
        )
    n8, count8, p8 = results[0]
    return (
        f"with {n8} tokens in 2 modules of 4 there are {count8} relabellings, and the smallest p is "
        f"{p8:.4f} = 2/{count8}: swapping the two modules' names changes nothing; the lesson's 1,000 "
        "shuffles sample this same distribution"
    )


@exercise(
    "10.8",
    "the share of a node's inputs from its own module",
    hint="return a number: the expected inputs from its own module over its expected inputs in all",
)
def _own_inputs(answer) -> str:
    f = function(answer, "(modules, per_module, p_within, p_between)")
    form = "return the share, one number from 0 to 1"
    for m, s, pw, pb in ((4, 8, 0.5, 0.02), (2, 4, 0.6, 0.1), (3, 5, 0.3, 0.05)):
        got = number(f(m, s, pw, pb), form)
        own, other = (s - 1) * pw, (m - 1) * s * pb
        want = own / (own + other)
        if abs(got - want) <= 1e-6:
            continue
        where = f"for {m} modules of {s} with p = {pw:g} and {pb:g}"
        expect(
            abs(got - s * pw / (s * pw + other)) > 1e-6,
            f"{where} you give {got:.4f}: a node listens to itself in your count",
            f"a node has no edge to itself: {s - 1} other nodes in its own module",
        )
        expect(
            abs(got - pw / (pw + pb)) > 1e-6,
            f"{where} you give {got:.4f}, which leaves out how many nodes each probability applies to",
            "weigh each probability by the number of possible inputs it applies to",
        )
        expect(
            abs(got - own) > 1e-6,
            f"{where} you give {got:.4f}, the expected number of inputs from the own module",
            "divide by the expected number of inputs in all",
        )
        raise Wrong(
            f"{where} you give {got:.4f}, the share is {want:.4f}",
            f"own module: {s - 1} possible inputs at p_within; the other modules: {(m - 1) * s} at p_between",
        )
    return (
        "about 0.88 with the lesson's settings: one input in eight comes from another module, so the "
        "nodes of one module move together, and a few edges tie the modules to each other"
    )
