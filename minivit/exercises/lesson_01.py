"""Checks for lesson 01 (attention from scratch)."""

from __future__ import annotations

import math

import torch

from minivit.exercises.core import (
    Wrong,
    differs,
    exercise,
    expect,
    function,
    number,
    same,
    tensor,
)


@exercise("01.1", "the temperature of attention without the 1/√d", hint="answer a number")
def _temperature_of_no_scaling(answer) -> str:
    t = number(answer, "answer the temperature T as a number")
    head = 256 // 2  # one head's width: dim / heads
    right = 1 / math.sqrt(head)
    if abs(t - right) <= 0.01 * right:  # 0.088 and 0.0884 both pass
        return "T = 1/√128 ≈ 0.088: the scores grow 11-fold, so the attention is far sharper (lower entropy)"
    if abs(t - right) <= 0.05 * right:
        raise Wrong(
            f"T = {t:g} is near, but not within 1% of the temperature",
            "give three significant digits, or compute T from the head's width",
        )
    if abs(t - 1 / 16) < 1e-4:
        raise Wrong("T = 1/16 takes d as the model's width, 256", "d is one head's width: dim / heads")
    if t >= 1:
        raise Wrong(
            f"T = {t:g} is not below 1, so it would not sharpen the attention",
            "the temperature divides the scores; leaving out a division by √d multiplies them instead",
        )
    raise Wrong(
        f"T = {t:g} does not turn q·k/√d into q·k for heads of width 128",
        "the scores are q·k/√d; without the division they are q·k: which T gives (q·k/√d)/T = q·k?",
    )


@exercise(
    "01.4",
    "a causal bias for explicit_attention",
    hint="return a tensor [n, n]: 0 where token i may see token j (j ≤ i), −inf where it may not",
)
def _causal_bias(answer) -> str:
    from minivit.attention import explicit_attention

    f = function(answer, "(n)")
    additive = (
        "a bias is added to the logits before the softmax: 0 leaves a key as it is and −inf hides it "
        "(0/1 weights are a mask to multiply, not a bias)"
    )
    for n in (1, 5, 9):
        bias = tensor(f(n), "return a tensor [n, n]", (n, n))
        seen = torch.ones(n, n, dtype=torch.bool).tril()  # row i (query), column j (key): j <= i
        expect(not torch.isnan(bias).any(), "the bias holds NaN", additive)
        visible, hidden = bias[seen], bias[~seen]
        if n > 1 and (visible < -1e4).any() and (hidden.abs() < 1e-6).all():
            raise Wrong(
                "your bias hides keys j < i and shows keys j > i: it is the transpose",
                "row i is the query and column j the key: token i may see j ≤ i (on and below the diagonal)",
            )
        diagonal = torch.eye(n, dtype=torch.bool)
        if (bias[diagonal] < -1e4).all() and (bias[seen & ~diagonal].abs() < 1e-6).all():
            raise Wrong(
                f"with n = {n} your bias hides each token from itself (the diagonal)",
                "token i may see every j ≤ i, itself included: with the diagonal hidden the first token "
                "sees nothing at all",
            )
        if (visible.abs() > 1e-6).any():
            i, j = (int(x) for x in (seen & (bias.abs() > 1e-6)).nonzero()[0])
            raise Wrong(
                f"with n = {n}, entry ({i}, {j}) is {bias[i, j].item():g}, though key {j} ≤ {i} is visible",
                additive,
            )
        if (hidden > -1e4).any():
            i, j = (int(x) for x in ((~seen) & (bias > -1e4)).nonzero()[0])
            raise Wrong(
                f"with n = {n}, entry ({i}, {j}) is {bias[i, j].item():g}: key {j} > {i} still gets weight",
                additive,
            )
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(6, 4, generator=g) for _ in range(3))
    bias = tensor(f(6), "return a tensor [n, n]", (6, 6)).float()
    out = explicit_attention(q, k, v, bias)[0]
    later = torch.cat([v[:3], torch.randn(3, 4, generator=g)])  # change the values of tokens 3-5
    expect(
        same(explicit_attention(q, k, later, bias)[0][:3], out[:3]),
        "changing a later token's value moves an earlier token's output",
        "hide every key j > i",
    )
    return (
        "token i sees tokens 0..i: the first token's output is its own value, and a reordering changes "
        "what every later token sees"
    )


@exercise(
    "01.5",
    "attention weights at another temperature, from the weights alone",
    hint="return a tensor of the weights' shape whose rows sum to 1",
)
def _temperature_from_weights(answer) -> str:
    from minivit import analysis

    f = function(
        answer,
        "(weights, T)",
        refuse=(
            analysis.with_temperature,
            "analysis.with_temperature",
            "the exercise asks you to write it: what does a weight's power do to the logits?",
        ),
    )
    g = torch.Generator().manual_seed(0)
    logits = 2 * torch.randn(3, 7, 7, generator=g, dtype=torch.float64)
    weights = logits.softmax(-1)
    for t in (0.5, 2.0, 5.0):
        got = tensor(f(weights.clone(), t), "return the new weights", tuple(weights.shape))
        want = (logits / t).softmax(-1)
        expect(
            same(got.sum(-1), torch.ones(3, 7), atol=1e-5),
            f"at T = {t:g} a row sums to {got.sum(-1).reshape(-1)[0].item():.4g}",
            "each row must be a distribution again: divide by its sum",
        )
        flipped = (logits * t).softmax(-1)
        expect(
            not same(got, flipped, atol=1e-5) or t == 1,
            f"at T = {t:g} your weights are those of T = {1 / t:g}",
            "softmax(s/T) is proportional to softmax(s)^(1/T): raise to 1/T, not T",
        )
        expect(
            same(got, want, atol=1e-5),
            f"at T = {t:g}, " + differs(got, want, "weight"),
            "softmax(s/T) is proportional to exp(s/T) = exp(s)^(1/T); a row's weights are exp(s) over a sum",
        )
    return "softmax(s)^(1/T), renormalised, is softmax(s/T): the temperature needs no logits"


@exercise(
    "01.6",
    "the entropy of each attention row",
    hint="return a tensor of the weights' shape without its last axis: −Σ_j w_j log w_j per row, in nats",
)
def _row_entropy(answer) -> str:
    from minivit import analysis

    f = function(
        answer,
        "(weights)",
        refuse=(
            analysis.entropy,
            "analysis.entropy",
            "the exercise asks you to write it: −Σ_j w_j log w_j over the last axis",
        ),
    )
    g = torch.Generator().manual_seed(0)
    logits = 2 * torch.randn(2, 3, 6, 6, generator=g, dtype=torch.float64)
    causal = torch.full((6, 6), -math.inf, dtype=torch.float64).triu(1)  # rows with zero weights
    cases = {
        "softmax rows": logits.softmax(-1),
        "causal rows (zero weights above the diagonal)": (logits + causal).softmax(-1),
        "one-hot and uniform rows": torch.stack([torch.eye(5, dtype=torch.float64), torch.full((5, 5), 0.2)]),
    }
    for name, weights in cases.items():
        want = -torch.special.xlogy(weights, weights).sum(-1)
        got = tensor(f(weights.clone()), "return one entropy per row", tuple(want.shape))
        nan = torch.isnan(got)
        if bool(nan.any()):
            raise Wrong(
                f"for {name} your entropy is NaN at {tuple(int(i) for i in nan.nonzero()[0])}",
                "a weight of 0 gives 0 · log 0 = 0 · (−inf) = NaN in floats; its limit is 0: leave the zero "
                "weights out (torch.where, or torch.special.xlogy)",
            )
        if same(got, want / math.log(2), atol=1e-5):
            raise Wrong(f"for {name} your entropies are in bits", "in nats: the natural log, torch.log")
        expect(
            not same(got, -want, atol=1e-5) or same(want, torch.zeros_like(want)),
            f"for {name} your entropies are negative",
            "entropy is −Σ w log w: each log w ≤ 0, so the minus makes it ≥ 0",
        )
        expect(
            same(got, want, atol=1e-5),
            f"for {name}, " + differs(got, want, "the entropy of row"),
            "−Σ_j w_j log w_j over the keys j (the last axis), one number per query row",
        )
    return (
        "0 for a one-hot row, log N for a uniform one; a causal row i spreads over i + 1 keys at most, so "
        "its entropy is at most log(i + 1)"
    )
