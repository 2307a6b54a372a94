"""ebb.torch.scan's smaller API: ebb.STRATEGIES is every strategy scan
accepts, steps of any integer type, a parameter missing from params named at
the first step, memory= (bytes or a fraction of store-all's), the state's
dtype handed to ebb as what a state is an array of (for compression), and
measure_costs= handed to the run."""

import ctypes

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ebb  # noqa: E402
import ebb._capi  # noqa: E402
import ebb.torch  # noqa: E402
from models import LSTM, RNN, GlobalDropout, unrolled  # noqa: E402
from test_torch_gradients import STRATEGIES, assert_bitwise, gradients, reference  # noqa: E402

T = 24


def test_strategies_lists_every_strategy_a_run_accepts():
    L = ebb._capi.lib()
    L.ebb_config_strategy_name.restype = ctypes.c_char_p
    names = []
    for i in range(64):
        name = L.ebb_config_strategy_name(i).decode()
        if name != "?":
            names.append(name)
    assert sorted(ebb.STRATEGIES) == sorted(names)
    assert "async" in ebb.STRATEGIES and "auto" in ebb.STRATEGIES
    assert set(ebb.SCHEDULES) < set(ebb.STRATEGIES)
    # and the gradient tests run scan under each of them
    assert {s for s, _, _ in STRATEGIES} == set(ebb.STRATEGIES)


@pytest.mark.parametrize("steps", [np.int64(T), np.int32(T), np.uint16(T), torch.tensor(T),
                                   torch.tensor(T, dtype=torch.int32)],
                         ids=["np.int64", "np.int32", "np.uint16", "tensor", "tensor-int32"])
def test_steps_of_any_integer_type(steps):
    model = RNN(steps=T)
    want = reference(model, T)
    got = gradients(model, lambda step, h0: ebb.torch.scan(step, h0, steps, params=model.params,
                                                           strategy="revolve", slots=3))
    assert_bitwise(want, got)


@pytest.mark.parametrize("steps,error", [(True, TypeError), (24.0, TypeError),
                                         (torch.tensor(24.0), TypeError), ("24", TypeError),
                                         (0, ValueError),
                                         (np.int64(-3), ValueError)])
def test_steps_that_are_not_a_positive_integer_are_refused(steps, error):
    model = RNN(steps=T)
    with pytest.raises(error, match="steps must be an integer >= 1"):
        ebb.torch.scan(model.step, model.h0, steps, params=model.params)


@pytest.mark.parametrize("strategy,slots,until", [("online", 4, False), ("online", 4, True),
                                                   ("async", 4, False)])
def test_measure_costs_keeps_the_gradients(strategy, slots, until, disk_config):
    model = RNN(steps=T)
    want = reference(model, T)
    stop = (lambda h, t: t == T - 1) if until else None
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, None if until else T, until=stop, params=model.params, strategy=strategy,
        slots=slots, config=disk_config, measure_costs=True))
    assert_bitwise(want, got)


def test_measure_costs_reaches_the_run():
    model = RNN(steps=T)
    with pytest.raises(ebb.EbbError, match="measure_costs"):
        ebb.torch.scan(model.step, model.h0, T, params=model.params, strategy="revolve",
                       slots=3, measure_costs=True)


class Counting:
    def __init__(self, model):
        self.model, self.calls = model, []

    def step(self, h, t):
        self.calls.append((t, torch.is_grad_enabled()))
        return self.model.step(h, t)


def test_a_missing_parameter_is_named_at_the_first_step():
    """Before: the forward sweep ran all T steps, and the error came at
    backward. Now step 0 is tried with grad first and the error comes from
    scan() itself, after that one call."""
    model = LSTM(steps=T)
    c = Counting(model)
    with pytest.raises(ValueError, match="not in params") as e:
        ebb.torch.scan(c.step, model.h0, T, params=model.params[:2], strategy="revolve",
                       slots=3)
    assert c.calls == [(0, True)], c.calls
    assert "step(h, 0) uses a tensor of shape" in str(e.value)


def test_a_missing_parameter_is_found_even_when_nothing_else_needs_grad():
    """No params, h0 without grad: nothing would ever call backward, and the
    step's weight would silently get no gradient."""
    model = RNN(steps=T)
    with pytest.raises(ValueError, match="not in params"):
        ebb.torch.scan(model.step, model.h0, T, strategy="revolve", slots=3)


def test_no_trial_under_no_grad_and_the_trial_draws_no_random_numbers():
    model = GlobalDropout()
    c = Counting(model)
    with torch.no_grad():
        ebb.torch.scan(c.step, model.h0, T, params=model.params, strategy="revolve", slots=3)
    assert c.calls == [(t, False) for t in range(T)]
    # with grad: the trial of step 0, then the sweep; the generator is left
    # where the unrolled loop leaves it, even without preserve_rng_state
    c.calls.clear()
    torch.manual_seed(3)
    ebb.torch.scan(c.step, model.h0, T, params=model.params, strategy="revolve", slots=3,
                   preserve_rng_state=False)
    after = torch.get_rng_state()
    assert c.calls == [(0, True)] + [(t, False) for t in range(T)]
    torch.manual_seed(3)
    with torch.no_grad():
        unrolled(model.step, model.h0, T)
    assert torch.equal(after, torch.get_rng_state())


# -- memory= --------------------------------------------------------------------

def _info(model, **kw):
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(step, h0, T, params=model.params,
                                                           report=report, **kw))
    return report["info"], got


def test_the_default_budget_makes_auto_store_everything():
    """What docs/python.md says at its top: with the default host budget auto
    picks store-all, and memory= is how to save memory."""
    info, _ = _info(LSTM(steps=T))
    assert info.strategy == "store-all" and info.slots["host"] == T - 1


@pytest.mark.parametrize("fraction", [0.25, 0.5])
def test_memory_as_a_fraction_of_store_all(fraction, disk_config):
    model = LSTM(steps=T)
    want = reference(model, T)
    info, got = _info(model, memory=fraction, config=disk_config)
    assert info.slots["host"] == int(fraction * (T - 1)), info
    assert info.strategy != "store-all"
    assert_bitwise(want, got, f"memory={fraction}")


def test_memory_in_bytes_and_the_callers_config_untouched(disk_config):
    model = LSTM(steps=T)
    before = disk_config.to_toml()
    # without the generator's 5 KiB in it, this LSTM's state is its tensors,
    # each rounded up to 64 bytes; a host slot is that as slot_stride rounds it
    size = sum((x.numel() * x.element_size() + 63) // 64 * 64 for x in model.h0)
    stride = ebb.runtime.slot_stride("host", size)
    info, _ = _info(model, memory=5 * stride, config=disk_config, preserve_rng_state=False)
    assert info.slots["host"] == 5, info
    info, _ = _info(model, memory=f"{7 * stride} B", config=disk_config, strategy="revolve",
                    preserve_rng_state=False)
    assert info.slots["host"] == 7, info
    assert disk_config.to_toml() == before


@pytest.mark.parametrize("memory,error", [(1.5, ValueError), (0.0, ValueError),
                                          (True, TypeError), ([1], TypeError)])
def test_a_memory_that_is_neither_bytes_nor_a_fraction_is_refused(memory, error):
    model = RNN(steps=T)
    with pytest.raises(error, match="memory"):
        ebb.torch.scan(model.step, model.h0, T, params=model.params, memory=memory)


# -- the element type ---------------------------------------------------------------

class Recorded(ebb.runtime.Run):
    seen = []

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        Recorded.seen.append((self.state_size, self._options.element))


@pytest.fixture
def recorded(monkeypatch):
    Recorded.seen = []
    monkeypatch.setattr(ebb.torch.runtime, "Run", Recorded)
    return Recorded.seen


@pytest.mark.parametrize("dtypes,element", [
    ((torch.float32,), 1), ((torch.float64,), 2), ((torch.float32, torch.float32), 1),
    ((torch.float16,), -1), ((torch.float32, torch.float64), -1),
    ((torch.float32, torch.int64), -1)])
def test_the_state_dtype_sets_the_element(dtypes, element, recorded):
    h0 = tuple(torch.ones(3, dtype=d) for d in dtypes)
    ebb.torch.scan(lambda h, t: (h, None), h0, 4, strategy="revolve", slots=2)
    assert recorded[0][1] == element


def test_lossy_compression_needs_no_element_key(disk_config):
    """tier.disk.compression = "fixed-rate" without tier.disk.element: the
    float32 state says what it is. Before: refused at create ("needs the
    states' element type"); now the run gets past that check (the disk
    tier's codec stage is not in the library yet: that refusal is the
    library's, EBB_ERR_UNSUPPORTED)."""
    disk_config.update({"tier": {"disk": {"compression": "fixed-rate"}}})
    model = LSTM(steps=T)
    try:
        ebb.torch.scan(model.step, model.h0, T, params=model.params, strategy="multistage",
                       slots=2, disk_slots=6, config=disk_config)
    except ebb.EbbError as e:
        assert "element" not in e.message, e.message
        assert e.status == ebb.status.UNSUPPORTED and "not supported by this tier yet" in \
            e.message, e.message


def test_a_lossy_codec_never_sees_the_generators_state(disk_config, recorded):
    """The CPU generator's state travels in the state buffer, where a lossy
    codec would change it: with a lossy mode configured it is kept by step
    instead, and dropout on the global generator stays exact."""
    model = GlobalDropout()
    want = reference(model, T)
    plain = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, T, params=model.params, strategy="revolve", slots=3))
    disk_config.update({"tier": {"disk": {"compression": "fixed-rate"}}})
    lossy = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, T, params=model.params, strategy="revolve", slots=3, config=disk_config))
    assert_bitwise(want, plain)
    assert_bitwise(want, lossy)
    with_rng, without = recorded[0][0], recorded[1][0]
    assert with_rng - without >= torch.get_rng_state().numel(), recorded


def test_a_lossy_host_tier_never_sees_the_generators_state(recorded):
    """tier.host.compression = "fixed-rate" is lossy too: the library says
    which tiers are, so the generator's state is kept by step as with a
    lossy disk, and dropout replays the same masks. The gradients are
    autograd's within the codec's error (rate 20 over float32 states)."""
    model = GlobalDropout()
    want = reference(model, T)
    cfg = ebb.Config({"tier": {"host": {"compression": "fixed-rate", "rate": 20,
                                        "budget": "64 KiB"}}})
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, T, params=model.params, strategy="revolve", config=cfg, report=report))
    assert report["stats"].compressions["host"] > 0, report["stats"]
    assert recorded[0][0] < torch.get_rng_state().numel(), recorded  # no generator inside
    assert torch.equal(want["rng"], got["rng"])
    for key in ("h_n", "params", "h0"):
        for x, y in zip(want[key], got[key]):
            err = ((x - y).norm() / x.norm()).item()
            assert 0 <= err < 1e-3, (key, err)
