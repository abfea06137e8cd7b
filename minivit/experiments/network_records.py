"""What the network experiment (`minivit.experiments.network`, lesson 10) records: each seed's network
as a lesson draws it, and the summary of the runs over seeds."""

from __future__ import annotations

from typing import Any

import torch

from minivit.data.network import Network, module_correlations

__all__ = ["MEASURES", "network_record", "summarize"]


def network_record(net: Network) -> dict[str, Any]:
    """What a lesson needs to draw a seed's network: each token's module, the weights (in the token
    order), and the mean correlation within and between modules."""
    within, between = module_correlations(net)
    return {
        "modules": net.modules.tolist(),
        "weights": [[round(v, 4) for v in row] for row in net.weights.tolist()],
        "correlation_within": within,
        "correlation_between": between,
    }


MEASURES = ("within_between", "ari", "connectivity")


def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per arm, over seeds: mean and standard deviation of each error and each recovery measure, its
    null's mean, and in how many seeds the measure is above its null's 95th percentile."""
    out: dict[str, dict[str, Any]] = {}
    for arm in dict.fromkeys(r["arm"] for r in runs):
        rs = [r for r in runs if r["arm"] == arm]
        values: dict[str, list[float]] = {}
        for r in rs:
            for split, v in r["unexplained"].items():
                values.setdefault(f"unexplained_{split}", []).append(v)
            for m in MEASURES if "recovery" in r else ():
                values.setdefault(m, []).append(r["recovery"][m])
                values.setdefault(m + "_null", []).append(r["recovery"][m + "_null"][0])
        s: dict[str, Any] = {"seeds": len(rs)}
        for key, v in values.items():
            t = torch.tensor(v, dtype=torch.float64)
            s[key] = t.mean().item()
            s[key + "_std"] = t.std().item() if len(v) > 1 else 0.0
        for m in MEASURES if "recovery" in rs[0] else ():
            s[m + "_above_null"] = sum(r["recovery"][m] > r["recovery"][m + "_null"][1] for r in rs)
        out[arm] = s
    return out
