import matplotlib
import pytest
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)  # tiny models: one thread is fastest and immune to CPU contention


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
