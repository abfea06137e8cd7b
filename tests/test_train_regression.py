"""fit as a masked-token regression (pool "tokens", num_classes 1, TensorDataset(inputs, targets, masked)):
the loss, its R², evaluation, resuming, and the errors for data and model that do not match."""

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViT, ViTConfig
from minivit.augment import Augment
from minivit.data.network import network_task, simulate_network
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate, unexplained
from minivit.train import fit, is_regression


@pytest.fixture(scope="module")
def net():
    return simulate_network(steps=1200, seed=0)


def token_model(nodes=32, window=4, **kw):
    kw = {"dim": 16, "depth": 1, "heads": 1, "position": "learned", "num_classes": 1, "pool": "tokens", **kw}
    return ViT(ViTConfig(image_size=(1, nodes), patch_size=1, in_channels=window + 1, **kw))


def masked_mse(model, data):
    inputs, targets, masked = data.tensors
    with torch.no_grad():
        out = model(inputs).squeeze(-1)
    return (out - targets)[masked].square().mean().item()


def test_the_first_loss_is_the_untrained_models_mse_over_the_masked_tokens(net):
    data = network_task(net, start=0, stop=200, seed=1)
    model = token_model()
    before = masked_mse(model.eval(), data)
    # one batch that is the whole set: the first step's loss is the mean over every masked token
    h = fit(model, data, steps=1, batch_size=len(data), lr=1e-3, progress=False)
    assert h.loss[0] == pytest.approx(before, rel=1e-5)
    variance = data.targets[data.masked].var().item()
    assert h.accuracy[0] == pytest.approx(1 - before / variance, rel=1e-5)


def test_fit_learns_to_predict_masked_nodes_from_the_others(net):
    train = network_task(net, start=0, stop=900, seed=1)
    test = network_task(net, start=900, stop=1200, seed=2)
    torch.manual_seed(0)
    model = token_model()
    start = unexplained(model, test)
    h = fit(model, train, steps=300, batch_size=64, lr=3e-3, weight_decay=0.0, eval_data=test, progress=False)
    after = unexplained(model, test)
    # a model that says 0 for every node leaves about all of the variance (1); the network's modules
    # make nodes predictable from each other, so training explains a good part of it
    assert start > 0.95 and after < 0.85, (start, after)
    assert h.eval_accuracy[-1] == pytest.approx(1 - after, abs=1e-6)
    assert evaluate(model, test) == pytest.approx(1 - after, abs=1e-9)


def test_unexplained_is_one_minus_one_over_n_for_a_model_that_says_the_mean(net):
    data = network_task(net, start=0, stop=300, seed=1)
    model = token_model()
    with torch.no_grad():
        model.head.weight.zero_()
        model.head.bias.fill_(data.targets[data.masked].double().mean().item())
    n = int(data.masked.sum())
    # the mean's squared error is the biased variance: (n - 1) / n of the (unbiased) variance
    assert unexplained(model, data, batch_size=37) == pytest.approx((n - 1) / n, abs=1e-5)


def test_a_regression_resumes_to_the_same_weights(net, tmp_path):
    data = network_task(net, start=0, stop=300, seed=1)
    opts = {"steps": 20, "batch_size": 32, "lr": 1e-3, "progress": False, "checkpoint_every": 10}
    torch.manual_seed(0)
    whole = token_model()
    h_whole = fit(whole, data, **opts)

    class Stop(Exception):
        pass

    def stop_at_13(step, model, history):
        if step == 13:
            raise Stop

    torch.manual_seed(0)
    with pytest.raises(Stop):
        fit(token_model(), data, **opts, out=tmp_path, callback=stop_at_13)
    torch.manual_seed(1)  # the resumed run takes everything from the checkpoint (step 10)
    again = token_model()
    h_again = fit(again, data, **opts, out=tmp_path, resume=True)
    for a, b in zip(whole.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert h_again.loss == h_whole.loss and h_again.accuracy == h_whole.accuracy


def test_is_regression_tells_the_two_kinds_of_data_apart(net):
    assert is_regression(network_task(net, start=0, stop=50))
    assert not is_regression(TensorDataset(torch.rand(4, 3, 8, 8), torch.tensor([0, 1, 2, 0])))


def test_a_regression_needs_a_token_model_and_a_classifier_a_pooled_one(net):
    data = network_task(net, start=0, stop=50)
    with pytest.raises(ValueError, match="pool='tokens' and num_classes=1"):
        fit(token_model(pool="mean", num_classes=2), data, steps=1, progress=False)
    images = TensorDataset(torch.rand(8, 5, 1, 32), torch.randint(0, 2, (8,)))
    with pytest.raises(ValueError, match="holds class labels, but the model has pool='tokens'"):
        fit(token_model(), images, steps=1, progress=False)
    with pytest.raises(ValueError, match="eval_data holds class labels"):
        fit(token_model(), data, eval_data=images, steps=1, progress=False)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda i, t, m: (i, t[:, :30], m[:, :30]), "30 targets per example, but its inputs make 1x32"),
        (lambda i, t, m: (i, t[:, :, None], m), r"targets must be \[B, N\]"),
        (lambda i, t, m: (i, t, m.float()), "mask must be bool"),
        (lambda i, t, m: (i, t, m & False), "no masked token"),
        (lambda i, t, m: (i, t.masked_fill(m, float("nan")), m), "NaN or inf"),
    ],
)
def test_bad_regression_data_says_what_to_fix(net, change, match):
    data = network_task(net, start=0, stop=50)
    bad = TensorDataset(*change(*data.tensors))
    with pytest.raises(ValueError, match=match):
        fit(token_model(), bad, steps=1, progress=False)


def test_augmentation_label_smoothing_and_ensembles_are_refused_for_a_regression(net):
    data = network_task(net, start=0, stop=50)
    with pytest.raises(ValueError, match="leave them out for a masked-token regression"):
        fit(token_model(), data, steps=1, label_smoothing=0.1, progress=False)
    with pytest.raises(ValueError, match="leave them out for a masked-token regression"):
        fit(token_model(), data, steps=1, augment=Augment(flip=True), progress=False)
    with pytest.raises(ValueError, match="train a masked-token regression .* with fit"):
        fit_ensemble([token_model(), token_model()], data, seeds=[0, 1], steps=1, progress=False)


def test_unexplained_names_data_and_models_that_are_not_a_masked_regression(net):
    images = TensorDataset(torch.rand(4, 5, 1, 32), torch.tensor([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="for classes use evaluate"):
        unexplained(token_model(), images)
    with pytest.raises(ValueError, match="give it pool='tokens' and num_classes=1"):
        unexplained(token_model(pool="mean", num_classes=2), network_task(net, start=0, stop=50))
