"""Every registered encoding, against what any encoding must do: wrong numbers with the right shapes.

The model-level registry-wide tests (test_model, test_finetune_carry, ...) catch shape, state-dict
and carry errors. These catch what they cannot see, for an encoding added to `REGISTRY` with no edit
here:
- rows and columns swapped: every test runs on non-square grids (3x5 and 5x3), where a swap changes
  the numbers and not the shapes;
- stale state: one instance is run at two grids and again after `load_state_dict`, and must compute
  what a fresh instance with the same weights computes (a cache keyed wrongly, a cached value that
  never trains);
- the class token's row and column: prefix tokens come first, get zero bias, and leave the patches'
  numbers as they are without prefix tokens;
- the traits an encoding declares (`offset_only`, `symmetric`, `prefix_untouched`, in `base.py`),
  checked for every encoding that declares them, and their absence where it does not;
- a gradient reaching every entry of every trainable parameter;
- one name: an encoding's registry key, its module and its class agree.

Weights are redrawn from N(0, 0.5), as training leaves them (`scaled`): at init a learned table or
phase is near zero and hides most errors.
"""

from __future__ import annotations

import re

import pytest
import torch

from minivit import ViT, ViTConfig, analysis
from minivit.posenc import REGISTRY, GridCache, PositionalEncoding, build, grid_coords, grid_distances

NAMES = list(REGISTRY)
GRIDS = [(3, 5), (5, 3)]
SHAPE = {"dim": 32, "heads": 2, "depth": 2}  # head width 16: 2-D RoPE needs 4 | Dh, spiral 8 | Dh


def encoding(name, grid, prefix=0):
    return build(name, **SHAPE, grid=grid, num_prefix_tokens=prefix).eval()


def scaled(module, seed=0):
    """`module` with every parameter redrawn from N(0, 0.5), from a seeded generator."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    return module


def hooks(enc, grid, seed=0, prefix_inputs=None):
    """What the three hooks give at `grid` for fixed random tokens, q and k, at every block: a list of
    (kind, tensor), kind "tokens" [B, P+N, D], "q" or "k" [B, H, P+N, Dh'] or "bias" [H, P+N, P+N] (a
    bias of None is left out). `prefix_inputs` (tokens, q, k) sets the prefix tokens' inputs."""
    g, gp = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed + 1)
    p, n, dh = enc.num_prefix_tokens, grid[0] * grid[1], enc.head_dim
    shapes = ((2, n, enc.dim), (2, enc.heads, n, dh), (2, enc.heads, n, dh))  # tokens, q, k
    patches = [torch.randn(shape, generator=g) for shape in shapes]  # the same with or without a prefix
    if prefix_inputs is None:
        prefix_inputs = [torch.randn(shape[:-2] + (p, shape[-1]), generator=gp) for shape in shapes]
    x, q, k = (torch.cat([a, b], dim=-2) for a, b in zip(prefix_inputs, patches, strict=True))
    out = []
    for layer in range(enc.depth):
        out.append(("tokens", enc.add_to_tokens(x, grid, layer)))
        out.extend(zip(("q", "k"), enc.rotate(q, k, grid, layer), strict=True))
        bias = enc.attn_bias(grid, layer)
        if bias is not None:
            out.append(("bias", bias))
    return out


def assert_same(got, expected, what):
    assert [kind for kind, _ in got] == [kind for kind, _ in expected], what
    for i, ((kind, a), (_, b)) in enumerate(zip(got, expected, strict=True)):
        torch.testing.assert_close(
            a, b, atol=1e-5, rtol=1e-5, msg=lambda m, i=i, kind=kind: f"{what}, {kind} {i}: {m}"
        )


def changed(got, before):
    return any(not torch.equal(a, b) for (_, a), (_, b) in zip(got, before, strict=True))


# --- stale state ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", [0, 1])
@pytest.mark.parametrize("name", NAMES)
def test_one_instance_at_two_grids_and_after_load_state_dict_computes_what_a_fresh_one_does(name, prefix):
    a, b = GRIDS
    used = scaled(encoding(name, a, prefix))
    first = [hooks(used, grid) for grid in (a, b, a)]  # a, then b: a cache keyed without the grid shows
    assert_same(first[2], first[0], f"{name} at {a}, again after {b}")
    fresh = encoding(name, a, prefix)
    fresh.load_state_dict(used.state_dict())
    for grid, got in ((b, first[1]), (a, first[0])):  # the fresh one sees b first
        assert_same(got, hooks(fresh, grid), f"{name} at {grid}, against a fresh instance")

    # new weights loaded in place (as an optimizer step changes them): nothing computed before stays
    new = scaled(encoding(name, a, prefix), seed=1).state_dict()
    used.load_state_dict(new)
    reloaded = encoding(name, a, prefix)
    reloaded.load_state_dict(new)
    for grid, before in ((a, first[0]), (b, first[1])):
        after = hooks(used, grid)
        assert_same(after, hooks(reloaded, grid), f"{name} at {grid} after load_state_dict")
        if len(new):
            assert changed(after, before), (
                f"{name}: new weights change nothing at {grid}: a value cached from the old weights?"
            )


# --- the class token -----------------------------------------------------------------------------------


def without_prefix(state: dict, target: dict, p: int) -> dict:
    """`state` of an encoding with `p` prefix tokens, for one without: an entry one size per prefix
    token longer along one dim (a learned table's class-token rows) loses its first `p` entries."""
    out = {}
    for key, value in state.items():
        want = target[key].shape
        dims = [d for d in range(value.dim()) if value.dim() == len(want) and value.shape[d] != want[d]]
        if value.shape == want:
            out[key] = value
            continue
        assert len(dims) == 1 and value.shape[dims[0]] == want[dims[0]] + p, (
            f"{key}: {tuple(value.shape)} with {p} prefix token(s), {tuple(want)} without: a state "
            "whose shape depends on the prefix tokens holds them as the first entries along one dim"
        )
        out[key] = value.narrow(dims[0], p, want[dims[0]])
    return out


@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("name", NAMES)
def test_the_class_token_comes_first_gets_zero_bias_and_leaves_the_patches_as_they_are(name, grid):
    with_cls = scaled(encoding(name, grid, prefix=1))
    plain = encoding(name, grid)
    plain.load_state_dict(without_prefix(with_cls.state_dict(), plain.state_dict(), 1))
    got, expected = hooks(with_cls, grid), hooks(plain, grid)
    assert [kind for kind, _ in got] == [kind for kind, _ in expected]
    for (kind, out), (_, ref) in zip(got, expected, strict=True):
        if kind == "bias":  # [H, P+N, P+N]
            assert (out[:, 0, :] == 0).all() and (out[:, :, 0] == 0).all(), (
                f"{name}: the class token's bias row and column (the first ones) must be zero (`pad_prefix`)"
            )
            torch.testing.assert_close(out[:, 1:, 1:], ref, msg=lambda m: f"{name}: bias among patches: {m}")
        else:  # tokens [B, P+N, D], q or k [B, H, P+N, Dh']
            torch.testing.assert_close(
                out[..., 1:, :],
                ref,
                msg=lambda m, kind=kind: f"{name}: patches' {kind} after a class token: {m}",
            )

    # what the class token gets does not depend on the grid: it has no place on it
    g = torch.Generator().manual_seed(5)
    dh = SHAPE["dim"] // SHAPE["heads"]
    inputs = {
        "tokens": torch.randn(2, 1, SHAPE["dim"], generator=g),
        "q": torch.randn(2, SHAPE["heads"], 1, dh, generator=g),
        "k": torch.randn(2, SHAPE["heads"], 1, dh, generator=g),
    }
    prefix = (inputs["tokens"], inputs["q"], inputs["k"])
    here = hooks(with_cls, grid, prefix_inputs=prefix)
    there = hooks(with_cls, (grid[1], grid[0] + 1), prefix_inputs=prefix)
    touched = False
    for (kind, a), (_, b) in zip(here, there, strict=True):
        if kind == "bias":
            continue
        torch.testing.assert_close(
            a[..., :1, :], b[..., :1, :], msg=lambda m, kind=kind: f"{name}: class token's {kind}: {m}"
        )
        if with_cls.prefix_untouched:
            assert torch.equal(a[..., :1, :], inputs[kind]), (
                f"{name} declares prefix_untouched, but its {kind} change the class token"
            )
        touched = touched or not torch.equal(a[..., :1, :], inputs[kind])
    assert with_cls.prefix_untouched or touched, (
        f"{name}: the hooks leave the class token as it is: declare prefix_untouched = True"
    )


# --- declared traits ---------------------------------------------------------------------------------


def same_content_scores(name, grid, pool):
    """Every block's scores between patches at `grid` when every patch is one of 3 content vectors,
    in a model trained at the other grid of GRIDS (scaled weights): [L, 3, H, N, N]."""
    train = GRIDS[1] if grid == GRIDS[0] else GRIDS[0]
    config = ViTConfig(
        image_size=(4 * train[0], 4 * train[1]), patch_size=4, position=name, pool=pool, **SHAPE
    )
    model = scaled(ViT(config)).eval()
    content = torch.randn(3, SHAPE["dim"], generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        return torch.stack([analysis.same_content_scores(model, content, layer, grid) for layer in range(2)])


@pytest.mark.parametrize("pool", ["mean", "cls"])
@pytest.mark.parametrize("grid", [*GRIDS, (4, 4)])
@pytest.mark.parametrize("name", NAMES)
def test_declared_traits_hold_and_undeclared_ones_do_not(name, grid, pool):
    declared = REGISTRY[name]
    scores = same_content_scores(name, grid, pool)  # (L, 3, H, N, N)
    dependence = analysis.offset_dependence(scores, grid)
    varies = dependence["varies"].any()
    if declared.offset_only:
        assert dependence["varies"].all(), f"{name} is declared offset-only, but its scores do not vary"
        assert dependence["fraction"].max() < 1e-9, (
            f"{name} is declared offset_only, but its scores depend on more than the offset at {grid}: "
            f"{dependence['fraction'].max().item():.3g} of their variance (rows and columns swapped?)"
        )
    elif varies:
        assert dependence["fraction"].max() > 1e-6, (
            f"{name}'s scores depend on the offset alone at {grid}: declare offset_only = True in its class"
        )
    asymmetry = (scores - scores.transpose(-1, -2)).abs().amax() / scores.abs().amax().clamp_min(1e-30)
    if declared.symmetric:
        assert asymmetry < 1e-5, (
            f"{name} is declared symmetric, but s(i, j) != s(j, i) at {grid}: {asymmetry:.3g}"
        )
    elif varies:
        assert asymmetry > 1e-3, (
            f"{name}'s scores are symmetric at {grid}: declare symmetric = True in its class"
        )


# --- gradients ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", [0, 1])
@pytest.mark.parametrize("name", NAMES)
def test_a_gradient_reaches_every_entry_of_every_trainable_parameter(name, prefix):
    enc = scaled(encoding(name, GRIDS[0], prefix)).train()
    for grid in GRIDS:  # the second grid after the first: a cache filled there must not cut the graph
        enc.zero_grad()
        g = torch.Generator().manual_seed(7)
        outputs = [o for _, o in hooks(enc, grid) if o.requires_grad]
        if outputs:
            sum((o * torch.randn(o.shape, generator=g)).sum() for o in outputs).backward()
        for key, p in enc.named_parameters():
            if not p.requires_grad:
                continue
            assert p.grad is not None, f"{name}: no gradient reaches {key} at {grid} (a detached cache?)"
            if grid == GRIDS[0]:  # at the grid it was built for, every entry is used
                dead = (p.grad == 0).float().mean().item()
                assert dead == 0, f"{name}: {dead:.0%} of {key}'s entries get no gradient at {grid}"


def test_the_grid_cache_keys_by_grid_device_and_extra_and_refuses_a_parameters_value():
    cache, calls = GridCache(), []

    def compute(grid):
        calls.append(grid)
        return grid_distances(grid)

    for grid in [(3, 5), (5, 3), (3, 5)]:
        torch.testing.assert_close(
            cache.get(grid, None, lambda grid=grid: compute(grid)), grid_distances(grid)
        )
    assert calls == [(3, 5), (5, 3)]  # the second 3x5 from the cache
    cache.get((3, 5), None, lambda: compute((3, 5)), "interpolate")
    assert calls[-1] == (3, 5) and len(calls) == 3  # another extra, another entry
    rc = grid_coords((3, 5))
    assert grid_distances((3, 5))[0, 14] == torch.dist(rc[0], rc[14])  # (0, 0) to (2, 4)
    weight = torch.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="must not depend on a parameter"):
        cache.get((2, 2), None, lambda: weight * grid_distances((2, 2))[None])


def name_disagreements(registry) -> list[str]:
    """Where an encoding's key, module and class disagree: its module is the key's family (the key
    without its dimension, 1d or 2d, and without the variant after a hyphen: `rope-axial`, `rope1d`
    live in `rope.py`), and its class's name begins with the key (hyphens dropped, case aside:
    `rope-axial` is `RoPEAxial`, `relative` is `RelativeBias`)."""
    out = []
    for key, cls in registry.items():
        module, family = cls.__module__.rsplit(".", 1)[-1], re.sub(r"(\d+d)?(-.*)?$", "", key)
        if module != family:
            out.append(f"{key!r} lives in minivit/posenc/{module}.py: move {cls.__name__} to {family}.py")
        if not cls.__name__.lower().startswith(key.replace("-", "")):
            out.append(f"{key!r} is class {cls.__name__}: begin its name with {key.replace('-', '')!r}")
    return out


def test_every_encodings_key_module_and_class_agree():
    assert not name_disagreements(REGISTRY)


def test_a_key_module_or_class_that_disagrees_is_named():
    def klass(name, module):
        return type(name, (PositionalEncoding,), {"__module__": f"minivit.posenc.{module}"})

    planted = {
        "peg": klass("PEG", "conditional"),  # another module
        "none": klass("NoPosition", "none"),  # another class
        "rope-spiral": klass("RoPESpiral", "spiral"),  # the variant's own module
        "sincos1d": klass("Sincos1D", "sincos"),  # agrees
        "rope-axial": klass("RoPEAxial", "rope"),  # agrees
    }
    found = name_disagreements(planted)
    assert len(found) == 3, found
    assert "'peg' lives in minivit/posenc/conditional.py: move PEG to peg.py" in found
    assert "'none' is class NoPosition: begin its name with 'none'" in found
    assert "'rope-spiral' lives in minivit/posenc/spiral.py: move RoPESpiral to rope.py" in found
