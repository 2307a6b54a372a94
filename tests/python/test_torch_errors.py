"""ebb.torch.scan when something goes wrong: exceptions in the step, a second
backward, a non-deterministic step, a parameter not passed; and that ebb's
slots, threads and files are released in every case."""

import gc
import weakref

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from conftest import Leftovers, open_fds_under  # noqa: E402
from models import LSTM, Dropout, unrolled  # noqa: E402

T = 30
K = 11


class Boom(Exception):
    pass


@pytest.fixture(autouse=True)
def warm_torch():
    # torch starts its own threads on first use: before the thread baseline
    torch.randn(8, 8) @ torch.randn(8, 8)


def failing_step(model, where, raised):
    calls = {}

    def step(hc, t):
        calls[t] = calls.get(t, 0) + 1
        grad = torch.is_grad_enabled()
        if t == K and ((where == "forward" and calls[t] == 1)
                       or (where == "recomputation" and not grad and calls[t] == 2)
                       or (where == "reverse" and grad)):
            raised.append(Boom(f"{where} at {t}"))
            raise raised[-1]
        return model.step(hc, t)
    return step


@pytest.mark.parametrize("where", ["forward", "recomputation", "reverse"])
@pytest.mark.parametrize("strategy,slots,disk_slots",
                         [("revolve", 2, None), ("multistage", 2, 3)])
def test_exception_in_step_propagates_and_nothing_is_left(where, strategy, slots, disk_slots,
                                                          disk_config, disk_dir):
    model = LSTM(steps=T)
    h0 = tuple(x.clone().requires_grad_() for x in model.h0)
    raised = []
    leftovers = Leftovers(disk_dir)
    with pytest.raises(Boom) as e:
        h_n, loss = ebb.torch.scan(failing_step(model, where, raised), h0, T,
                                   params=model.params, strategy=strategy, slots=slots,
                                   disk_slots=disk_slots, config=disk_config)
        assert where != "forward"
        model.total(h_n, loss).backward()
    assert e.value is raised[0], "not the step's own exception"
    note = " ".join(getattr(e.value, "__notes__", []))
    expect = {"forward": f"forward step {K} failed",
              "recomputation": f"forward step {K} (recomputation) failed",
              "reverse": f"reverse step {K} failed"}[where]
    assert expect in note, note
    # the failed backward wrote no half-summed gradient
    assert all(p.grad is None for p in model.params) and all(x.grad is None for x in h0)
    h_n = loss = None
    e = None
    leftovers.check()


def test_resources_held_until_backward_then_released(disk_config, disk_dir):
    model = LSTM(steps=T)
    report = {}
    h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params,
                               strategy="multistage", slots=2, disk_slots=8,
                               config=disk_config, report=report)
    assert report["info"].slots["disk"] == 8
    assert open_fds_under(disk_dir), "the disk tier is not open during the scan"
    model.total(h_n, loss).backward()
    assert open_fds_under(disk_dir) == []
    assert report["stats"].reverse_steps == T


def test_resources_released_when_the_result_is_dropped(disk_config, disk_dir):
    model = LSTM(steps=T)
    leftovers = Leftovers(disk_dir)
    h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params,
                               strategy="multistage", slots=2, disk_slots=8,
                               config=disk_config)
    node = weakref.ref(loss.grad_fn)
    assert open_fds_under(disk_dir)
    del h_n, loss
    assert node() is None, "the graph is kept alive by a reference cycle"
    leftovers.check()
    gc.collect()


def test_second_backward_raises_a_clear_error():
    model = LSTM(steps=T)
    h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params,
                               strategy="revolve", slots=3)
    total = model.total(h_n, loss)
    total.backward(retain_graph=True)
    first = [p.grad.clone() for p in model.params]
    with pytest.raises(RuntimeError, match="backward already ran through this scan"):
        total.backward()
    assert all(torch.equal(a, p.grad) for a, p in zip(first, model.params))


def test_create_graph_is_refused():
    model = LSTM(steps=5)
    h_n, loss = ebb.torch.scan(model.step, model.h0, 5, params=model.params)
    with pytest.raises(RuntimeError, match="create_graph"):
        torch.autograd.grad(model.total(h_n, loss), model.params, create_graph=True)


@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 2)])
def test_audit_hash_names_a_non_deterministic_step(strategy, slots):
    model = LSTM(steps=T)

    def noisy(hc, t):
        (h, c), loss = model.step(hc, t)
        # the global generator, its state not restored at recomputation
        return (h + 1e-3 * torch.rand(h.shape), c), loss

    h_n, loss = ebb.torch.scan(noisy, model.h0, T, params=model.params, strategy=strategy,
                               slots=slots, audit="hash", preserve_rng_state=False)
    with pytest.raises((RuntimeError, ebb.EbbError), match="not deterministic"):
        model.total(h_n, loss).backward()


def test_audit_hash_accepts_dropout_seeded_from_t():
    model = Dropout()
    h0 = model.h0.clone().requires_grad_()
    h_n, loss = ebb.torch.scan(model.step, h0, T, params=model.params, strategy="revolve",
                               slots=2, audit="hash")
    model.total(h_n, loss).backward()
    got = [model.W.grad.clone(), h0.grad.clone()]
    model.W.grad = None
    h0r = model.h0.clone().requires_grad_()
    model.total(*unrolled(model.step, h0r, T)).backward()
    assert torch.equal(got[0], model.W.grad) and torch.equal(got[1], h0r.grad)


def test_a_tensor_not_in_params_is_refused():
    model = LSTM(steps=T)
    with pytest.raises(ValueError, match="not in params"):
        h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params[:2])
        model.total(h_n, loss).backward()


def test_step_returning_the_wrong_shape_is_named():
    model = LSTM(steps=T)

    def bad(hc, t):
        (h, c), loss = model.step(hc, t)
        return ((h, c[:, :3]) if t == 4 else (h, c)), loss

    with pytest.raises(ValueError, match=r"step\(h, 4\) returned h_next\[1\] of shape"):
        ebb.torch.scan(bad, model.h0, T, params=model.params)


def test_bad_arguments():
    model = LSTM(steps=T)
    with pytest.raises(ValueError, match="steps"):
        ebb.torch.scan(model.step, model.h0, 0, params=model.params)
    with pytest.raises(ValueError, match="twice"):
        ebb.torch.scan(model.step, model.h0, T, params=model.params + model.params[:1])
    with pytest.raises(ebb.EbbError, match="store-all needs"):
        ebb.torch.scan(model.step, model.h0, T, params=model.params, strategy="store-all",
                       slots=3)


def test_under_no_grad_nothing_is_held(disk_config, disk_dir):
    model = LSTM(steps=T)
    with torch.no_grad():
        h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params,
                                   strategy="multistage", slots=2, disk_slots=8,
                                   config=disk_config)
    assert not loss.requires_grad
    assert open_fds_under(disk_dir) == []
    ref = unrolled(model.step, model.h0, T)
    assert torch.equal(h_n[0], ref[0][0]) and torch.equal(loss, ref[1])
