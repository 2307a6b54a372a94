"""ebb.torch.scan's gradients against plain unrolled autograd, bitwise, under
every strategy and budget."""

import random

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from models import LSTM, MODELS, RNN, unrolled  # noqa: E402

T = 40

# (strategy, slots, disk_slots); None: from the configuration's budgets
STRATEGIES = [
    ("store-all", None, None),
    ("revolve", 3, None),
    ("revolve", 1, None),
    ("periodic", 14, None),
    ("online", 4, None),
    ("multistage", 2, 6),
    ("disk-revolve", 3, None),
    ("h-revolve", 2, 6),
    ("auto", None, None),
    ("async", 4, None),
]


def _structure(h0, requires_grad):
    h = tuple(h0) if isinstance(h0, tuple) else (h0,)
    h = tuple(x.detach().clone().requires_grad_(requires_grad and x.is_floating_point())
              for x in h)
    return h if isinstance(h0, tuple) else h[0]


def gradients(model, run, h0_grad=True, use=None):
    """Runs `run(step, h0)`, back-propagates model.total (or `use`) and
    returns every value and gradient that must match."""
    h0 = _structure(model.h0, h0_grad)
    for p in model.params:
        p.grad = None
    seed = getattr(model, "rng_seed", None)  # a model drawing from the global generator
    if seed is not None:
        torch.manual_seed(seed)
    h_n, loss = run(model.step, h0)
    (use or model.total)(h_n, loss).backward()
    leaves = h0 if isinstance(h0, tuple) else (h0,)
    outs = h_n if isinstance(h_n, tuple) else (h_n,)
    if loss is None:  # the unrolled reference with no loss_t at all
        loss = torch.zeros((), dtype=outs[0].dtype)
    got = {"h_n": [x.detach().clone() for x in outs], "loss": loss.detach().clone(),
           "params": [None if p.grad is None else p.grad.clone() for p in model.params],
           "h0": [None if x.grad is None else x.grad.clone() for x in leaves]}
    if seed is not None:  # and the generator is left where the unrolled run leaves it
        got["rng"] = torch.get_rng_state()
    return got


def assert_bitwise(a, b, what=""):
    for key in a:
        for i, (x, y) in enumerate(zip(a[key], b[key]) if isinstance(a[key], list)
                                   else [(a[key], b[key])]):
            assert (x is None) == (y is None), f"{what} {key}[{i}]: one is None"
            if x is not None:
                assert x.dtype == y.dtype and x.shape == y.shape, f"{what} {key}[{i}]"
                assert torch.equal(x, y), (f"{what} {key}[{i}] differs: max |diff| "
                                           f"{(x.double() - y.double()).abs().max().item():.3g}")


def ebb_run(strategy, slots, disk_slots, config, steps=T, report=None):
    def run(step, h0):
        return ebb.torch.scan(step, h0, steps, params=model_params[0], strategy=strategy,
                              config=config, slots=slots, disk_slots=disk_slots,
                              report=report)
    return run


model_params = [None]


def reference(model, steps=T, h0_grad=True, use=None):
    return gradients(model, lambda step, h0: unrolled(step, h0, steps), h0_grad, use)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("strategy,slots,disk_slots", STRATEGIES)
def test_gradients_equal_unrolled_autograd_bitwise(name, strategy, slots, disk_slots,
                                                   disk_config):
    model = MODELS[name]()
    model_params[0] = model.params
    ref = reference(model)
    report = {}
    try:
        got = gradients(model, ebb_run(strategy, slots, disk_slots, disk_config, report=report))
    except ebb.EbbError as e:
        if strategy == "async" and e.status == ebb.status.UNSUPPORTED:
            pytest.skip(f"async is not in this library yet: {e.message}")
        raise
    assert_bitwise(ref, got, f"{name}/{strategy}")
    st = report["stats"]
    assert st.reverse_steps == T
    if strategy in ("revolve", "online") or (strategy == "periodic"):
        assert st.recomputed_steps > 0
    if strategy in ("multistage", "disk-revolve"):
        assert st.bytes_written["disk"] > 0 and st.bytes_read["disk"] > 0


@pytest.mark.parametrize("seed", range(16))
def test_random_budgets_bitwise_equal(seed, disk_config):
    """Random lengths, strategies and budgets: the same bits every time."""
    rng = random.Random(seed)
    steps = rng.randint(1, 90)
    strategy = rng.choice(["revolve", "online", "multistage", "disk-revolve", "store-all",
                           "async"])
    slots = rng.randint(1, 8) if strategy != "store-all" else None
    if strategy == "online":
        slots = max(slots, 2)
    disk_slots = rng.randint(1, 30) if strategy == "multistage" else None
    model = LSTM(batch=2, inputs=3, hidden=rng.choice([1, 4, 7]), steps=steps, seed=seed)
    model_params[0] = model.params
    ref = reference(model, steps)
    got = gradients(model, ebb_run(strategy, slots, disk_slots, disk_config, steps))
    assert_bitwise(ref, got, f"{strategy} C={slots} D={disk_slots} n={steps}")


def test_h0_without_grad():
    model = LSTM()
    model_params[0] = model.params
    ref = reference(model, h0_grad=False)
    got = gradients(model, ebb_run("revolve", 3, None, None), h0_grad=False)
    assert got["h0"] == [None, None]
    assert_bitwise(ref, got)


def test_h0_grad_only_no_params():
    model = RNN()
    for p in model.params:
        p.requires_grad_(False)
    model_params[0] = []
    ref = reference(model)
    got = gradients(model, ebb_run("revolve", 2, None, None))
    assert all(g is not None for g in got["h0"])
    assert_bitwise(ref, got)


def test_parameter_computed_from_a_leaf():
    """A parameter that is not a leaf (here W = 2 * W_raw): its gradient goes
    on through autograd to W_raw, as in the unrolled graph."""
    model = RNN()
    raw = model.W.detach().clone().requires_grad_()
    grads = []
    for run in ("unrolled", "ebb"):
        raw.grad = None
        model.W = raw * 2
        model.params = [model.W, model.b]
        h0 = model.h0.clone().requires_grad_()
        if run == "unrolled":
            h_n, loss = unrolled(model.step, h0, T)
        else:
            h_n, loss = ebb.torch.scan(model.step, h0, T, params=model.params,
                                       strategy="revolve", slots=3)
        model.total(h_n, loss).backward()
        grads.append((raw.grad.clone(), h0.grad.clone()))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


def test_loss_t_none_everywhere():
    model = RNN()
    model_params[0] = model.params
    step = model.step
    model.step = lambda h, t: (step(h, t)[0], None)
    use = lambda h_n, loss: (h_n ** 3).sum() + (0 if loss is None else loss)  # noqa: E731
    ref = reference(model, use=use)
    got = gradients(model, ebb_run("revolve", 4, None, None), use=use)
    assert got["loss"].item() == 0 and got["loss"].dtype == torch.float64
    assert_bitwise(ref, got)


def test_only_the_loss_is_used():
    model = LSTM()
    model_params[0] = model.params
    use = lambda h_n, loss: loss  # noqa: E731
    assert_bitwise(reference(model, use=use),
                   gradients(model, ebb_run("online", 3, None, None), use=use))


def test_single_tensor_state_in_a_list_is_a_tuple():
    model = RNN()
    h, loss = ebb.torch.scan(lambda hs, t: ((model.step(hs[0], t)[0],), None),
                             [model.h0], 5, params=model.params)
    assert isinstance(h, tuple) and len(h) == 1
    assert torch.equal(h[0], unrolled(model.step, model.h0, 5)[0])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 3)])
def test_cuda_gradients(strategy, slots):
    model = LSTM()
    model.cell.cuda()
    model.head.cuda()
    model.xs = model.xs.cuda()
    model.h0 = tuple(x.cuda() for x in model.h0)
    model_params[0] = model.params = list(model.cell.parameters())
    ref = reference(model)
    got = gradients(model, ebb_run(strategy, slots, None, None))
    # cuBLAS may pick other kernels with and without grad: compare closely
    for key in ("params", "h0", "h_n"):
        for x, y in zip(ref[key], got[key]):
            torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)
