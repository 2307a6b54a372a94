"""ebb.torch.scan(offload=...): a CUDA state's states also go to pinned host
slots (the asynchronous strategy over the gpu and host tiers). Without a
GPU the run itself cannot start here (the runtime's gpu -> host path is
tests/gpu_mock's, lag_async_follows_planner among them); what is checked is
what scan asks of the runtime: the configuration, the strategy and the slow
tier, and the refusals. The device run is scripts/gpu-check.sh's
(lstm_cuda.py, method ebb-offload)."""

import random
import types

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from ebb import runtime  # noqa: E402
from ebb._torch_budget import with_offload  # noqa: E402


def cuda_layout(size):
    """What with_offload reads of a Layout, for a state on a CUDA device."""
    return types.SimpleNamespace(device=torch.device("cuda", 0), size=size)


def disk_enabled(config):
    return config.as_dict()["tier"]["disk"]["enabled"]


def test_true_gives_host_slots_for_every_state():
    rng = random.Random(7)
    for _ in range(40):
        size, n = rng.randint(1, 1 << 20), rng.randint(1, 5000)
        cfg, strategy, slow = with_offload(None, True, cuda_layout(size), n, None, None)
        stride = runtime.slot_stride("host", size)
        assert cfg.budget("host") == max(1, n - 1) * stride, (size, n)
        assert (strategy, slow) == ("async", "host")
        assert disk_enabled(cfg) is False


@pytest.mark.parametrize("offload, want", [
    (1 << 30, 1 << 30), ("3 MiB", 3 << 20), (0.5, None)])
def test_bytes_a_size_or_a_fraction(offload, want):
    size, n = 300_000, 101
    cfg, _, _ = with_offload(None, offload, cuda_layout(size), n, "multistage", None)
    stride = runtime.slot_stride("host", size)
    assert cfg.budget("host") == (want if want is not None else 50 * stride)


def test_the_strategy_asked_is_kept_and_the_configuration_copied():
    base = ebb.Config({"tier": {"host": {"budget": "1 GiB"}}})
    cfg, strategy, _ = with_offload(base, True, cuda_layout(4096), 11, "h-revolve", None)
    assert strategy == "h-revolve"
    assert cfg.budget("host") == 10 * runtime.slot_stride("host", 4096)
    assert base.budget("host") == 1 << 30 and disk_enabled(base)


def test_n_unknown_keeps_the_configurations_host_budget():
    base = ebb.Config({"tier": {"host": {"budget": "5 MiB"}}})
    cfg, _, _ = with_offload(base, True, cuda_layout(4096), None, None, None)
    assert cfg.budget("host") == 5 << 20
    with pytest.raises(ValueError, match="not known with until="):
        with_offload(base, 0.5, cuda_layout(4096), None, None, None)


def test_none_and_false_change_nothing():
    base = ebb.Config()
    for off in (None, False):
        assert with_offload(base, off, cuda_layout(4096), 10, "revolve", 3) == \
            (base, "revolve", None)


@pytest.mark.parametrize("kw, err, match", [
    (dict(strategy="revolve"), ValueError, "strategy that uses a slower tier"),
    (dict(strategy="store-all"), ValueError, "strategy that uses a slower tier"),
    (dict(disk_slots=4), ValueError, "give one of them"),
    (dict(offload=1.5), ValueError, r"in \(0, 1\]"),
    (dict(offload=[1]), TypeError, "offload must be bytes"),
])
def test_refusals(kw, err, match):
    args = dict(offload=True, strategy=None, disk_slots=None)
    args.update(kw)
    with pytest.raises(err, match=match):
        with_offload(None, args["offload"], cuda_layout(4096), 100, args["strategy"],
                     args["disk_slots"])


def test_a_cpu_state_is_refused_by_scan():
    cell = torch.nn.Linear(4, 4)

    def step(h, t):
        h = torch.tanh(cell(h))
        return h, h.sum()

    with pytest.raises(ValueError, match="offload is for a CUDA state"):
        ebb.torch.scan(step, torch.zeros(1, 4), 10, params=list(cell.parameters()),
                       offload=True)
    # and without offload the same call runs
    h, loss = ebb.torch.scan(step, torch.zeros(1, 4), 10, params=list(cell.parameters()))
    loss.backward()


def test_scan_hands_the_options_to_the_run(monkeypatch):
    """What scan gives runtime.Run for a CUDA state with offload: the layout
    says cuda; the Run is stopped at its creation with what it was given."""
    seen = {}

    class Stop(Exception):
        pass

    def fake_run(size, n, forward, reverse, **kw):
        seen.update(kw, size=size, n=n)
        raise Stop

    real_layout = ebb.torch.Layout

    def cuda_view(h0s, extra_bytes=0):
        lay = real_layout(h0s, extra_bytes=extra_bytes)
        lay.device = torch.device("cuda", 0)
        return lay

    monkeypatch.setattr(ebb.torch, "Layout", cuda_view)
    stream = types.SimpleNamespace(stream=types.SimpleNamespace(cuda_stream=0x1000))
    monkeypatch.setattr(ebb.torch, "_streams_for", lambda d: stream)
    monkeypatch.setattr(ebb.torch.runtime, "Run", fake_run)
    h0 = torch.zeros(2, 8)
    with pytest.raises(Stop):
        ebb.torch.scan(lambda h, t: (h + 1, None), h0, 33, offload=True, chunk=4)
    assert seen["strategy"] == "async" and seen["slow_tier"] == "host"
    assert seen["state_tier"] == "gpu" and seen["n"] == 9
    assert seen["config"].budget("host") == 8 * runtime.slot_stride("host", seen["size"])
