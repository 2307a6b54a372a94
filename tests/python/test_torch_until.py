"""ebb.torch.scan with a length not known before: steps=None and
until(h, t), on ebb's n-unknown runs (online, async, auto), bitwise
against the unrolled loop that stops by the same rule."""

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from models import LSTM, RNN, GlobalDropout  # noqa: E402
from test_torch_gradients import assert_bitwise, gradients  # noqa: E402


def unrolled_until(step, h0, until, limit=None):
    """The reference: step until `until(h_{t+1}, t)` (or `limit` steps)."""
    h, loss, t = h0, None, 0
    while True:
        h, l = step(h, t)
        if l is not None:
            loss = l if loss is None else loss + l
        if (limit is not None and t + 1 >= limit) or until(h, t):
            return h, loss, t + 1
        t += 1


def stop_rule(threshold):
    """Ends when the state's mean crosses a threshold (a data-dependent n)."""
    def until(h, t):
        x = h[0] if isinstance(h, tuple) else h
        return x.mean() > threshold or t >= 60
    return until


UNKNOWN = [("online", 3, None), ("async", 3, None), ("auto", None, None),
           ("online", 1, None)]


@pytest.mark.parametrize("strategy,slots,disk_slots", UNKNOWN)
@pytest.mark.parametrize("model_cls,threshold", [(LSTM, 0.008), (RNN, 0.3), (GlobalDropout, 0.3)])
def test_until_equals_the_loop_that_stops_by_the_same_rule(model_cls, threshold, strategy, slots,
                                                            disk_slots, disk_config):
    model = model_cls()
    until = stop_rule(threshold)
    ran = {}

    def ref(step, h0):
        h, loss, ran["ref"] = unrolled_until(step, h0, until)
        return h, loss

    want = gradients(model, ref)
    report = {}

    def run(step, h0):
        try:
            return ebb.torch.scan(step, h0, None, until=until, params=model.params,
                                  strategy=strategy, slots=slots, disk_slots=disk_slots,
                                  config=disk_config, report=report)
        except ebb.EbbError as e:
            if strategy == "async" and e.status == ebb.status.UNSUPPORTED:
                pytest.skip(f"async is not in this library yet: {e.message}")
            raise

    got = gradients(model, run)
    assert 1 < ran["ref"] < 61, ran   # the rule, not the cap, ended it
    assert report["info"].steps == ran["ref"], (report["info"], ran)
    assert report["stats"].reverse_steps == ran["ref"]
    assert_bitwise(want, got, f"{strategy} until")


def test_until_true_at_step_0_is_one_step():
    model = RNN()
    want = gradients(model, lambda step, h0: unrolled_until(step, h0, lambda h, t: True)[:2])
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, None, until=lambda h, t: torch.tensor(True), params=model.params,
        strategy="online", slots=2, report=report))
    assert report["info"].steps == 1
    assert_bitwise(want, got)


def test_steps_with_until_is_a_limit():
    model = LSTM()
    never = lambda h, t: False  # noqa: E731
    want = gradients(model, lambda step, h0: unrolled_until(step, h0, never, limit=17)[:2])
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, 17, until=never, params=model.params, strategy="online", slots=3,
        report=report))
    assert report["info"].steps == 17
    assert_bitwise(want, got)


def test_steps_none_without_until_and_a_schedule_that_needs_n_are_refused():
    model = RNN()
    with pytest.raises(ValueError, match="steps=None needs until="):
        ebb.torch.scan(model.step, model.h0, None, params=model.params)
    with pytest.raises(TypeError, match="until must be a function"):
        ebb.torch.scan(model.step, model.h0, None, until=3, params=model.params)
    with pytest.raises(ebb.EbbError, match="online"):
        ebb.torch.scan(model.step, model.h0, None, until=lambda h, t: t == 5,
                       params=model.params, strategy="revolve", slots=3)
    with pytest.raises(ValueError, match="give bytes"):
        ebb.torch.scan(model.step, model.h0, None, until=lambda h, t: t == 5,
                       params=model.params, memory=0.5)
