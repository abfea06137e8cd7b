"""A model carried to another image size (`finetune.carried`, what `finetune` trains) computes there
what the trained model computes there, for every encoding: what an encoding was trained on (a
learned table, the grid its positions are measured against) is kept, not rebuilt for the new grid."""

import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.finetune import carried, finetune
from minivit.posenc import REGISTRY, options_of

# every encoding at its defaults, and again with each option that changes how it meets a new grid
CASES = [(name, {}) for name in REGISTRY]
CASES += [(name, {"interpolate": True}) for name in REGISTRY if "interpolate" in options_of(name)]
CASES += [
    ("learned", {"per_block": True, "antialias": True}),
    ("relative", {"resize": "clamp"}),
    ("relative", {"clip": 1, "shared": True}),
]
# the old grid 4x4; larger, smaller and non-square new grids
SIZES = [24, 8, (12, 20)]


def trained(name, options, pool="mean"):
    """A small model whose every weight is at a sizeable random scale, as training leaves them (at
    init some start at zero, e.g. STRING's basis, where a wrong carry would not show)."""
    torch.manual_seed(0)
    config = ViTConfig(
        image_size=16,
        patch_size=4,
        dim=32,
        heads=2,
        depth=2,
        position=name,
        position_options=options,
        pool=pool,
    )
    model = ViT(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return model


def images(size):
    h, w = (size, size) if isinstance(size, int) else size
    return torch.randn(3, 3, h, w, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}{o or ''}" for n, o in CASES])
def test_a_carried_model_computes_at_the_new_grid_what_the_trained_one_computes(name, options, size):
    model = trained(name, options, pool="cls" if name in ("learned", "relative") else "mean")
    tuned = carried(model, size)
    x = images(size)
    assert tuned.config.image_size == (x.shape[-2], x.shape[-1])
    with torch.no_grad():
        torch.testing.assert_close(tuned(x), model(x))
    # and a model built from its config and loaded with its state dict (a checkpoint) is the same model
    again = ViT(tuned.config).eval()
    again.load_state_dict(tuned.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(again(x), model(x))


@pytest.mark.parametrize(
    ("name", "options"),
    [("liere", {}), ("rope-axial", {"interpolate": True}), ("string", {"interpolate": True})],
)
def test_a_model_rebuilt_at_the_new_grid_without_carrying_computes_something_else(name, options):
    """What `finetune` did before encodings were carried: the same weights in a model built at the new
    size, whose encoding then measures positions against the new grid."""
    model = trained(name, options)
    x = images(24)
    rebuilt = ViT(model.config.with_(image_size=24)).eval()
    rebuilt.load_state_dict(model.state_dict())
    with torch.no_grad():
        change = (rebuilt(x) - model(x)).abs().max().item()
        assert change > 1e-2, change
        torch.testing.assert_close(carried(model, 24)(x), model(x))


def test_the_reference_grid_is_kept_only_where_it_differs_and_an_old_state_dict_loads():
    model = trained("liere", {})
    assert "pos.reference_grid" not in model.state_dict()  # encodings never carried: state dicts unchanged
    tuned = carried(model, 24)
    assert tuned.pos.grid == (6, 6) and tuned.pos.reference_grid == (4, 4)
    assert tuned.state_dict()["pos.reference_grid"].tolist() == [4, 4]
    fresh = ViT(tuned.config)
    fresh.load_state_dict(model.state_dict())  # a state dict without the key: measured against its grid
    assert fresh.pos.reference_grid == (6, 6)
    bad = dict(tuned.state_dict(), **{"pos.reference_grid": torch.tensor([4.0, 4.0])})
    with pytest.raises(RuntimeError, match="reference_grid must be two whole numbers"):
        fresh.load_state_dict(bad)


def test_finetune_trains_the_carried_model(monkeypatch):
    """What `finetune` hands to `fit` computes what the trained model computes, before any step."""
    import minivit.finetune

    model = trained("rope-mixed", {"interpolate": True})
    x = images(24)
    seen = []

    def fit(tuned, data, **settings):
        with torch.no_grad():
            seen.append(tuned.eval()(data.tensors[0]))

    monkeypatch.setattr(minivit.finetune, "fit", fit)
    tuned = finetune(model, torch.utils.data.TensorDataset(x, torch.tensor([0, 1, 2])), steps=1)
    assert tuned.pos.reference_grid == (4, 4) and len(seen) == 1
    with torch.no_grad():
        torch.testing.assert_close(seen[0], model(x))


def test_a_carried_run_resumes_into_a_model_built_at_the_new_size(tmp_path):
    """A fine-tune interrupted and resumed in a new session: the model is rebuilt from its config
    (no trained grid), and the checkpoint's trained grid comes back with its weights."""
    from minivit.train import fit

    tuned = carried(trained("liere", {}), 24)
    x = images(24)
    data = torch.utils.data.TensorDataset(x.repeat(4, 1, 1, 1), torch.tensor([0, 1, 2] * 4))
    options = dict(steps=4, batch_size=4, checkpoint_every=2, progress=False, out=tmp_path / "run")
    fit(tuned, data, **options)
    rebuilt = ViT(tuned.config)
    assert rebuilt.pos.reference_grid == (6, 6)
    fit(rebuilt, data, resume=True, **options)  # the run is complete: its weights are restored
    assert rebuilt.pos.reference_grid == (4, 4)
    with torch.no_grad():
        torch.testing.assert_close(rebuilt.eval()(x), tuned.eval()(x))
