"""A simulated network of nodes in modules: position without a grid.

In the spirit of Ito et al.'s network experiment (arXiv 2406.08272, v3 on), built on the network
model of Ito et al. (2017, Nature Communications): nodes in modules, dense connections inside a
module and sparse ones between, nonlinear stochastic dynamics. The parameters here are the course's
own (a laptop-sized design), not the paper's.

    x[t+1] = (1 - a) x[t] + a tanh(g W x[t]) + sqrt(a) noise[t],   noise ~ N(0, 1)

W has an edge i <- j with probability `p_within` when i and j share a module and `p_between`
otherwise; an edge's weight is N(1, 0.2²), and each row is divided by sqrt(its in-degree). After a
burn-in each node's trace is z-scored over the whole run (so steps held out of training lend their
part to one mean and one spread per node). The node order is then shuffled once, so that a node's index
says nothing about its module: only a learned encoding can find which nodes belong together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.utils.data import TensorDataset

from minivit.checks import check_whole


@dataclass(frozen=True)
class Network:
    """A network and a run of its dynamics, in the shuffled node order.

    weights [N, N] (float64; row i: the inputs of node i), modules [N] (each node's module, 0..K-1),
    order [N] (node k here is node order[k] of the module-sorted network), traces [T, N] (z-scored),
    scale [2, N] (the mean and standard deviation that z-scored the first run; a rerun is measured
    in the same units), and the settings it was drawn with.
    """

    weights: Tensor
    modules: Tensor
    order: Tensor
    traces: Tensor
    scale: Tensor
    settings: dict

    @property
    def nodes(self) -> int:
        return self.weights.shape[0]

    def sorted_by_module(self) -> Tensor:
        """The node indices sorted by module (a stable sort): index a matrix with it to see the blocks."""
        return torch.sort(self.modules, stable=True).indices

    def rerun(self, steps: int, seed: int) -> Network:
        """The same network (weights, modules, order) run again with fresh noise from `seed`, z-scored
        with the first run's mean and standard deviation (not its own: a short run in which a module
        stays on one side would otherwise be stretched into other units)."""
        s = self.settings
        inverse = torch.argsort(self.order)
        unshuffled = self.weights[inverse][:, inverse]
        raw = _run(unshuffled, steps, s["burn_in"], s["leak"], s["gain"], seed)[:, self.order]
        traces = ((raw - self.scale[0]) / self.scale[1]).float()
        return Network(
            self.weights,
            self.modules,
            self.order,
            traces,
            self.scale,
            {**s, "steps": steps, "noise_seed": seed},
        )


def simulate_network(
    modules: int = 4,
    nodes_per_module: int = 8,
    *,
    steps: int = 2000,
    p_within: float = 0.5,
    p_between: float = 0.02,
    leak: float = 0.5,
    gain: float = 1.0,
    burn_in: int = 200,
    seed: int = 0,
) -> Network:
    """Draw a modular network from `seed` and run it for `steps` steps (after `burn_in`).

    Defaults: 4 modules of 8 nodes, edges within a module with probability 0.5 and between modules
    with 0.02, leak a = 0.5 and gain g = 1. At g = 1.5 a module can hold one sign for long stretches,
    so later steps are unlike earlier ones (a model trained on the first 900 steps of seed 0 then
    predicts the next 300 worse than their mean); at g = 0.5 the nodes barely move together. Denser
    coupling between modules (0.05 with g = 2) makes a global mode that hides the modules.
    """
    check_whole("modules", modules, 2)
    check_whole("nodes_per_module", nodes_per_module, 2)
    check_whole("steps", steps, 2)
    check_whole("burn_in", burn_in, 0)
    for name, p in (("p_within", p_within), ("p_between", p_between)):
        if not 0 <= p <= 1:
            raise ValueError(f"{name}={p!r}: an edge probability lies in [0, 1]")
    if p_within <= p_between:
        raise ValueError(
            f"p_within={p_within} <= p_between={p_between}: modules need denser connections inside "
            "than between; raise p_within or lower p_between"
        )
    if not 0 < leak <= 1:
        raise ValueError(f"leak={leak!r}: give a in (0, 1] (1 forgets the last state entirely)")
    if not gain > 0:
        raise ValueError(f"gain={gain!r}: give g > 0")
    g = torch.Generator().manual_seed(seed)
    n = modules * nodes_per_module
    module_of = torch.arange(n) // nodes_per_module
    same = module_of[:, None] == module_of[None, :]
    p = torch.where(same, p_within, p_between)
    edges = (torch.rand(n, n, generator=g, dtype=torch.float64) < p) & ~torch.eye(n, dtype=torch.bool)
    w = torch.where(edges, 1 + 0.2 * torch.randn(n, n, generator=g, dtype=torch.float64), 0.0)
    w = w / edges.sum(1, keepdim=True).clamp_min(1).sqrt()
    order = torch.randperm(n, generator=g)
    noise_seed = int(torch.randint(2**31 - 1, (1,), generator=g))
    raw = _run(w, steps, burn_in, leak, gain, noise_seed)[:, order]
    scale = torch.stack([raw.mean(0), raw.std(0).clamp_min(1e-12)])
    settings = {
        "modules": modules,
        "nodes_per_module": nodes_per_module,
        "steps": steps,
        "p_within": p_within,
        "p_between": p_between,
        "leak": leak,
        "gain": gain,
        "burn_in": burn_in,
        "seed": seed,
        "noise_seed": noise_seed,
    }
    return Network(
        weights=w[order][:, order],
        modules=module_of[order],
        order=order,
        traces=((raw - scale[0]) / scale[1]).float(),
        scale=scale,
        settings=settings,
    )


def _run(w: Tensor, steps: int, burn_in: int, leak: float, gain: float, seed: int) -> Tensor:
    """Iterate the dynamics in float64; return the traces [steps, N] after the burn-in (float64)."""
    g = torch.Generator().manual_seed(seed)
    w = w.double()
    n = w.shape[0]
    x = torch.zeros(n, dtype=torch.float64)
    out = torch.empty(steps, n, dtype=torch.float64)
    noise = torch.randn(burn_in + steps, n, generator=g, dtype=torch.float64) * math.sqrt(leak)
    for t in range(burn_in + steps):
        x = (1 - leak) * x + leak * torch.tanh(gain * (w @ x)) + noise[t]
        if t >= burn_in:
            out[t - burn_in] = x
    return out


def module_correlations(net: Network) -> tuple[float, float]:
    """Mean correlation of the traces between two different nodes of one module, and of two modules."""
    c = torch.corrcoef(net.traces.T)
    same = net.modules[:, None] == net.modules[None, :]
    off = ~torch.eye(net.nodes, dtype=torch.bool)
    return c[same & off].mean().item(), c[~same].mean().item()


class NetworkTask(TensorDataset):
    """Masked-node prediction on a network run, as images a ViT reads as one row of N tokens.

    inputs [n, window + 1, 1, N]: channel k < window holds each node's value at t - window + 1 + k,
    the last channel is 1 where the node is masked (its values are then zeros); targets [n, N]:
    every node's value at t + 1; masked [n, N] bool: the nodes whose target is scored.
    """

    def __init__(self, inputs: Tensor, targets: Tensor, masked: Tensor, modules: Tensor):
        super().__init__(inputs, targets, masked)
        self.modules = modules

    @property
    def inputs(self) -> Tensor:
        return self.tensors[0]

    @property
    def targets(self) -> Tensor:
        return self.tensors[1]

    @property
    def masked(self) -> Tensor:
        return self.tensors[2]

    def __repr__(self) -> str:
        n, c, _, nodes = self.inputs.shape
        return f"NetworkTask(n={n}, {nodes} nodes, window {c - 1}, {self.masked.float().mean():.0%} masked)"


def network_task(
    net: Network,
    *,
    window: int = 4,
    mask_fraction: float = 0.15,
    start: int = 0,
    stop: int | None = None,
    seed: int = 0,
) -> NetworkTask:
    """Every time t in [start + window - 1, stop - 1) of `net`'s traces as one sample: the last `window`
    values of each node, a random `mask_fraction` of the nodes masked (at least one), and the next
    values as targets. Use disjoint [start, stop) ranges for training and held-out time steps."""
    steps = net.traces.shape[0]
    stop = steps if stop is None else stop
    check_whole("window", window, 1)
    if not 0 < mask_fraction < 1:
        raise ValueError(f"mask_fraction={mask_fraction!r}: give a fraction in (0, 1), e.g. 0.15")
    if not 0 <= start < stop <= steps:
        raise ValueError(f"start={start}, stop={stop}: need 0 <= start < stop <= {steps} (the run's steps)")
    first = start + window - 1  # the first t with a full window
    n = stop - 1 - first  # t + 1 must be < stop
    if n < 1:
        raise ValueError(
            f"[{start}, {stop}) holds no sample with window {window}: "
            f"make the range at least {window + 1} steps"
        )
    x = net.traces
    t = torch.arange(first, first + n)
    values = torch.stack([x[t - window + 1 + k] for k in range(window)], dim=1)  # (n, window, N)
    g = torch.Generator().manual_seed(seed)
    k = max(1, round(mask_fraction * net.nodes))
    masked = torch.zeros(n, net.nodes, dtype=torch.bool)
    masked.scatter_(1, torch.rand(n, net.nodes, generator=g).argsort(1)[:, :k], True)
    values = values.masked_fill(masked[:, None, :], 0.0)
    inputs = torch.cat([values, masked[:, None, :].float()], dim=1)[:, :, None, :]  # (n, window + 1, 1, N)
    return NetworkTask(inputs, x[t + 1], masked, net.modules)
