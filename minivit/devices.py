"""Where training runs: the device (cuda, mps or cpu), its mixed precision, the memory it has, and the
process group of a `torchrun` launch (one process per GPU, or gloo on the CPU).

    device = pick_device()                       # cuda, then mps, then cpu (or what prefer_device set)
    prefer_device("cpu")                         # what every device=None means from here on
    autocast_dtype(device)                       # bf16 on a GPU that has it, fp16 on one that does not
    rank, world, device = init_distributed()     # (0, 1, None) outside torchrun
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch
from torch import nn

from minivit.checks import check_choice

PRECISIONS = ("auto", "bf16", "fp16", "fp32")
DEVICE_TYPES = ("cuda", "mps", "cpu")


def check_device(device: str | torch.device | None) -> None:
    """Raise a ValueError unless `device` is None (the best available), or a cuda, mps or cpu device
    that this machine has."""
    if device is None:
        return
    try:
        d = torch.device(device)
    except (RuntimeError, TypeError):
        d = None
    if d is None or d.type not in DEVICE_TYPES:
        raise ValueError(f"device={device!r} is not a device; use cuda, cuda:N, mps or cpu (or leave it out)")
    if d.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise ValueError(
                f"device={device!r}: torch sees no CUDA GPU here; use cpu, or leave the device out for "
                "the best available"
            )
        if d.index is not None and d.index >= count:
            raise ValueError(
                f"device={device!r}: this machine has {count} GPU(s), cuda:0 to cuda:{count - 1}"
            )
    if d.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError(f"device={device!r}: mps (Apple GPUs) is not available here; use cpu")


_preferred: torch.device | None = None  # set by prefer_device: what device=None means in this process


def prefer_device(device: str | torch.device | None) -> None:
    """Make `device` what `pick_device()`, and so every function of minivit given no device, uses in
    this process; None goes back to the best available.

    The lessons run on the CPU (`minivit.lesson.setup` calls this), where their claims were swept:
    their small models need no GPU, and their analyses take the tensors they make on the CPU.
    """
    global _preferred
    check_device(device)
    _preferred = None if device is None else torch.device(device)


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """`device` if given, else the one `prefer_device` set, else the best available: cuda, then mps,
    then cpu."""
    if device is not None:
        check_device(device)
        return torch.device(device)
    if _preferred is not None:
        return _preferred
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def autocast_dtype(device: torch.device, precision: str = "auto") -> torch.dtype | None:
    """The autocast dtype for `precision` on `device` (None: full fp32).

    "auto" is bf16 on a GPU that has it, fp16 (with loss scaling in `fit`) on one that does not
    (Colab's T4), and fp32 on a CPU or mps.
    """
    check_choice("precision", precision, PRECISIONS)
    if precision == "auto":
        if device.type != "cuda":
            return None
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}[precision]


def _cgroup_room() -> int | None:
    """Bytes this process may still take under a cgroup (v2 or v1) memory limit, if there is one."""
    for limit, usage in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            cap = Path(limit).read_text().strip()
            used = int(Path(usage).read_text().strip())
        except (OSError, ValueError):
            continue
        if cap.isdigit() and int(cap) < 2**60:
            return max(0, int(cap) - used)
    return None


def host_memory() -> int | None:
    """Bytes of RAM available to this process (Linux: MemAvailable, within a cgroup limit; elsewhere
    the physical memory), or None where it cannot be read."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None
    room = _cgroup_room()
    return available if room is None else min(available, room)


def device_memory(device: torch.device) -> int | None:
    """Bytes free on `device` (a GPU's free memory; the host's RAM for cpu and mps), or None."""
    if device.type == "cuda":
        try:
            return torch.cuda.mem_get_info(device)[0]
        except RuntimeError:
            return None
    return host_memory()


def check_room(nbytes: float, what: str, fix: str, device: torch.device | None = None) -> None:
    """Raise a ValueError before `what` is made if its `nbytes` are more than `device` (default: this
    machine) has free, or than this process may still map (ulimit -v), so a request a million times
    too large is one line (`fix`: what to pass instead), not an allocator's error minutes later."""
    device = torch.device(device or "cpu")
    free = device_memory(device)
    if device.type != "cuda":
        limit = _address_room()
        free = limit if free is None else (free if limit is None else min(free, limit))
    if free is None or nbytes <= free:
        return
    where = f"the GPU ({device})" if device.type == "cuda" else "this machine"
    raise ValueError(
        f"{what} needs about {_gigabytes(nbytes)} of memory, more than the {_gigabytes(free)} {where} "
        f"has free; {fix}"
    )


def _gigabytes(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def _address_room() -> int | None:
    """Bytes this process may still map under its address-space limit (ulimit -v), None if unlimited."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return max(0, soft - int(line.split()[1]) * 1024)
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return None


def init_distributed(device: str | None = None) -> tuple[int, int, torch.device | None]:
    """Join the process group that `torchrun` describes in the environment (WORLD_SIZE, RANK,
    LOCAL_RANK, MASTER_ADDR, MASTER_PORT): nccl with one GPU per process where there are GPUs (and
    `device` is not "cpu"), else gloo on the CPU. Returns (rank, world size, this process's device);
    outside torchrun, (0, 1, None).
    """
    world = _from_env("WORLD_SIZE", 1, "the number of processes", default=1)
    if world == 1:
        return 0, 1, None
    dist = torch.distributed
    rank = _from_env("RANK", 0, f"this process's number, 0 to {world - 1}", below=world)
    local = _from_env("LOCAL_RANK", 0, "this process's number on its machine", default=0)
    missing = [name for name in ("MASTER_ADDR", "MASTER_PORT") if not os.environ.get(name, "").strip()]
    if missing and not dist.is_initialized():
        raise ValueError(
            f"WORLD_SIZE={world} asks for {world} processes, but {' and '.join(missing)} (where they meet) "
            f"{'is' if len(missing) == 1 else 'are'} not set; start them with torchrun --nproc_per_node "
            f"{world}, or unset WORLD_SIZE to train in one process"
        )
    if not dist.is_initialized() and (rank == 0 or "TORCHELASTIC_RUN_ID" not in os.environ):
        print(  # a lone process started by hand would otherwise wait in silence for peers that never come
            f"minivit: process {rank} of {world} (WORLD_SIZE={world}) waits at {os.environ['MASTER_ADDR']}:"
            f"{os.environ['MASTER_PORT']} for the other {world - 1} to start (torchrun starts them all; "
            "Ctrl-C to stop, and unset WORLD_SIZE to train in one process)",
            file=sys.stderr,
            flush=True,
        )
    if torch.cuda.is_available() and (device is None or torch.device(device).type == "cuda"):
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    if not dist.is_initialized():
        dist.init_process_group(backend)
    return rank, world, device


def _from_env(name: str, least: int, what: str, default: int | None = None, below: int | None = None) -> int:
    """The environment variable `name` as a whole number >= `least` (and < `below`), or a ValueError
    that names it; unset: `default` (None: it must be set, as torchrun sets it)."""
    text = os.environ.get(name, "").strip()
    if not text and default is not None:
        return default
    value = int(text) if text.lstrip("-").isdigit() else None
    if value is None or value < least or (below is not None and value >= below):
        bound = f">= {least}" + (f" and < {below}" if below is not None else "")
        said = f"{name}={text!r} is not a whole number {bound}" if text else f"{name} is not set"
        raise ValueError(
            f"{said} ({what}, as torchrun sets it); start the processes "
            "with torchrun --nproc_per_node N, or unset WORLD_SIZE, RANK and LOCAL_RANK to train in one"
        )
    return value


def world() -> tuple[int, int]:
    """(rank, world size) of this process: (0, 1) unless a process group is running."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def check_split(batch_size: int, world: int) -> None:
    """Raise a ValueError unless a global batch of `batch_size` splits evenly over `world` processes."""
    if batch_size % world:
        raise ValueError(
            f"batch size {batch_size} does not split over {world} processes; use a multiple "
            f"of {world} (e.g. {batch_size - batch_size % world or world})"
        )


def wrap(model: nn.Module, device: torch.device, world: int, compile: bool | str) -> nn.Module:
    """The model as a training step calls it: under DistributedDataParallel with several processes,
    through `torch.compile` on request."""
    net = model
    if world > 1:
        from torch.nn.parallel import DistributedDataParallel

        ids = (
            [device.index if device.index is not None else torch.cuda.current_device()]
            if device.type == "cuda"
            else None
        )
        net = DistributedDataParallel(model, device_ids=ids)
    if compile:
        net = torch.compile(net, mode=None if compile is True else compile)
    return net
