"""Per-step outputs: step(h, t) -> (h_next, loss_t, y_t), and scan returns
the y_t stacked along a new leading time dimension, their gradients handed
to the reverse step of the step that made them. Bitwise against the
unrolled loop that stacks the same y_t (torch.stack), under every strategy
and with a length not known before (until=); the outputs are all that is
kept per step."""

import gc
import weakref

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from test_torch_gradients import STRATEGIES, assert_bitwise  # noqa: E402
from test_torch_until import UNKNOWN  # noqa: E402

T = 40


def unrolled(step, h0, steps=None, until=None):
    """The reference: the loop under autograd, the y_t stacked in order
    (each component of a tuple output stacked in turn)."""
    h, loss, ys, t = h0, None, [], 0
    while True:
        h, l, y = step(h, t)
        if l is not None:
            loss = l if loss is None else loss + l
        ys.append(y)
        t += 1
        if t == steps or (until is not None and until(h, t - 1)):
            break
    if isinstance(ys[0], tuple):
        return h, loss, tuple(torch.stack(c) for c in zip(*ys))
    return h, loss, torch.stack(ys)


class Logits:
    """An LSTM language model: per-step logits, the loss (cross-entropy over
    the stacked logits) computed outside the scan; no loss_t."""

    def __init__(self, seed=0, steps=64):
        g = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        self.cell = torch.nn.LSTMCell(5, 8)
        self.out = torch.nn.Linear(8, 7)
        self.params = list(self.cell.parameters()) + list(self.out.parameters())
        self.xs = torch.randn(steps, 3, 5, generator=g)
        self.targets = torch.randint(0, 7, (steps, 3), generator=g)
        self.h0 = (torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g))

    def step(self, hc, t):
        h, c = self.cell(self.xs[t % len(self.xs)], hc)
        return (h, c), None, self.out(h)

    def until(self, hc, t):      # a data-dependent length (n = 23)
        return (t >= 20 and hc[0].mean() < -0.05) or t >= 60

    def total(self, h_n, loss, logits):
        n = logits.shape[0]
        return torch.nn.functional.cross_entropy(logits.reshape(n * 3, 7),
                                                 self.targets[:n].reshape(-1))


class Attention:
    """An RNN that outputs its new state itself (y_t is h_next) and an
    integer prediction; attention of h_n over the stored states, plus a loss
    every step."""

    def __init__(self, seed=1, steps=64):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.5 * torch.randn(6, 6, generator=g, dtype=torch.float64)).requires_grad_()
        self.xs = torch.randn(steps, 2, 6, generator=g, dtype=torch.float64)
        self.params = [self.W]
        self.h0 = torch.randn(2, 6, generator=g, dtype=torch.float64)

    def step(self, h, t):        # h is used twice: its gradient has two addends
        h = torch.tanh(h @ self.W + self.xs[t % len(self.xs)]) + 0.3 * h
        return h, (h * h).mean(), (h, h.argmax(-1))

    def until(self, h, t):       # n = 19
        return h.mean() > 0.39 or t >= 60

    def total(self, h_n, loss, ys):
        states, guess = ys
        assert guess.dtype == torch.int64 and not guess.requires_grad
        score = torch.softmax(torch.einsum("tbh,bh->tb", states, h_n), 0)
        context = (score.unsqueeze(-1) * states).sum(0)
        return loss + (context * h_n).sum() + 0.1 * states.pow(2).sum()


class Inputs:
    """The step outputs its input state (y_t is h: the states x_0 .. x_{n-1})
    and a product of it with the new state; tuple state."""

    def __init__(self, seed=2, steps=64):
        g = torch.Generator().manual_seed(seed)
        self.A = (0.4 * torch.randn(4, 4, generator=g)).requires_grad_()
        self.B = (0.4 * torch.randn(4, 4, generator=g)).requires_grad_()
        self.params = [self.A, self.B]
        self.h0 = (torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g))

    def step(self, hv, t):
        h, v = hv
        h_next = torch.sin(h @ self.A + v) + 0.01 * t
        v_next = torch.cos(v @ self.B) * h_next
        return (h_next, v_next), h_next.mean(), (h, h * h_next)

    def until(self, hv, t):      # n = 20
        return hv[0].mean() > 0.325 or t >= 60

    def total(self, h_n, loss, ys):
        hs, prod = ys
        return loss + hs.pow(3).sum() + prod.sum() + h_n[0].sum()


MODELS = {"logits": Logits, "attention": Attention, "inputs": Inputs}


def gradients(model, run):
    h0 = model.h0
    h0 = tuple(x.clone().requires_grad_() for x in h0) if isinstance(h0, tuple) \
        else h0.clone().requires_grad_()
    for p in model.params:
        p.grad = None
    h_n, loss, ys = run(model.step, h0)
    model.total(h_n, loss, ys).backward()
    leaves = h0 if isinstance(h0, tuple) else (h0,)
    outs = ys if isinstance(ys, tuple) else (ys,)
    return {"ys": [y.detach().clone() for y in outs],
            "params": [p.grad.clone() for p in model.params],
            "h0": [x.grad.clone() for x in leaves]}


def scan_or_skip(*args, strategy=None, **kw):
    try:
        return ebb.torch.scan(*args, strategy=strategy, **kw)
    except ebb.EbbError as e:
        if strategy == "async" and e.status == ebb.status.UNSUPPORTED:
            pytest.skip(f"async is not in this library yet: {e.message}")
        raise


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("strategy,slots,disk_slots", STRATEGIES)
def test_outputs_bitwise_against_unrolled_autograd(name, strategy, slots, disk_slots,
                                                   disk_config):
    model = MODELS[name]()
    want = gradients(model, lambda step, h0: unrolled(step, h0, T))
    report = {}
    got = gradients(model, lambda step, h0: scan_or_skip(
        step, h0, T, params=model.params, strategy=strategy, slots=slots,
        disk_slots=disk_slots, config=disk_config, report=report))
    assert got["ys"][0].shape[0] == T
    assert_bitwise(want, got, f"{name}/{strategy}")
    assert report["stats"].reverse_steps == T


@pytest.mark.parametrize("strategy,slots,disk_slots", UNKNOWN)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_outputs_with_until_bitwise(name, strategy, slots, disk_slots, disk_config):
    model = MODELS[name]()
    until = model.until
    want = gradients(model, lambda step, h0: unrolled(step, h0, until=until))
    report = {}
    got = gradients(model, lambda step, h0: scan_or_skip(
        step, h0, None, until=until, params=model.params, strategy=strategy, slots=slots,
        disk_slots=disk_slots, config=disk_config, report=report))
    n = want["ys"][0].shape[0]
    assert 10 < n < 60 and report["info"].steps == n == got["ys"][0].shape[0]
    assert_bitwise(want, got, f"{name}/{strategy} until")


def test_only_some_outputs_used_and_no_outputs_used():
    """An output the loss does not use gets no gradient (None), and one
    output alone can carry the whole loss."""
    model = Attention()
    for use in (lambda h_n, loss, ys: ys[0].sum(),
                lambda h_n, loss, ys: loss + h_n.sum()):
        model.total = use
        want = gradients(model, lambda step, h0: unrolled(step, h0, T))
        got = gradients(model, lambda step, h0: ebb.torch.scan(
            step, h0, T, params=model.params, strategy="revolve", slots=3))
        assert_bitwise(want, got)


def test_a_single_output_is_a_tensor_and_a_step_without_outputs_returns_two():
    model = Logits()
    h_n, loss, logits = ebb.torch.scan(model.step, model.h0, 9, params=model.params)
    assert isinstance(logits, torch.Tensor) and logits.shape == (9, 3, 7)
    assert logits.requires_grad and loss.item() == 0
    res = ebb.torch.scan(lambda hc, t: model.step(hc, t)[:2], model.h0, 9, params=model.params)
    assert len(res) == 2


def _storage_bytes(x):
    s = x.untyped_storage() if hasattr(x, "untyped_storage") else x.storage()
    return s.nbytes() if hasattr(s, "nbytes") else s.size() * s.element_size()


@pytest.mark.parametrize("until", [False, True])
def test_nothing_of_the_steps_is_kept_but_the_outputs(until):
    """Every tensor a step makes is gone once scan returns (the outputs were
    copied into the stacked tensors), and again after the backward; the
    stacked outputs take exactly their own size."""
    model = Attention()
    made = []

    def step(h, t):
        z = h @ model.W
        h_next, loss_t, (y, guess) = model.step(h, t)
        made.extend(weakref.ref(x) for x in (h, z, h_next, loss_t, y, guess))
        return h_next, loss_t, (y, guess)

    h0 = model.h0.clone().requires_grad_()
    kw = dict(until=lambda h, t: t == T - 1) if until else {}
    h_n, loss, ys = ebb.torch.scan(step, h0, None if until else T, params=model.params,
                                   strategy="online" if until else "revolve", slots=4, **kw)
    gc.collect()
    assert made and all(r() is None for r in made), \
        f"{sum(r() is not None for r in made)} of the steps' tensors are still alive"
    for y in ys:
        assert y.shape[0] == T
        assert _storage_bytes(y) == y.numel() * y.element_size()
        assert y.grad_fn is None or type(y.grad_fn).__name__.startswith("_Scan")
    made.clear()
    model.total(h_n, loss, ys).backward()
    gc.collect()
    assert made and all(r() is None for r in made)


def test_outputs_that_change_across_steps_are_refused():
    model = Attention()

    def structure(h, t):
        h_next, loss_t, ys = model.step(h, t)
        return h_next, loss_t, (ys if t < 5 else ys[0])

    with pytest.raises(TypeError, match=r"step\(h, 5\) returned one output tensor, step 0 a "
                                        "tuple of 2 outputs"):
        ebb.torch.scan(structure, model.h0, 10, params=model.params)

    def shape(h, t):
        h_next, loss_t, _ = model.step(h, t)
        return h_next, loss_t, h_next[: 1 + (t == 3)]

    with pytest.raises(ValueError, match=r"step\(h, 3\) returned an output y_t\[0\] of shape "
                                         r"\(2, 6\).*step 0's was \(1, 6\)"):
        ebb.torch.scan(shape, model.h0, 10, params=model.params)

    def alias(h, t):
        h_next, loss_t, _ = model.step(h, t)
        return h_next, loss_t, (h_next if t != 4 else h_next.clone())

    with pytest.raises(RuntimeError, match=r"step\(h, 4\) returns its input or its h_next"):
        ebb.torch.scan(alias, model.h0, 10, params=model.params)

    with pytest.raises(TypeError, match=r"output y_t\[1\] of type int"):
        ebb.torch.scan(lambda h, t: (*model.step(h, t)[:2], (h, 3)), model.h0, 10,
                       params=model.params)


def test_hash_audit_covers_the_outputs():
    """A y_t that comes out different when recomputed (global randomness with
    preserve_rng_state=False, reaching only y_t) is named by audit="hash"."""
    model = Attention()

    def step(h, t):
        h_next, loss_t, _ = model.step(h, t)
        return h_next, loss_t, h_next + torch.rand(h_next.shape, dtype=h_next.dtype)

    h_n, loss, ys = ebb.torch.scan(step, model.h0.clone().requires_grad_(), 12,
                                   params=model.params, strategy="revolve", slots=3,
                                   audit="hash", preserve_rng_state=False)
    with pytest.raises(RuntimeError, match="a y_11 that differs"):
        (loss + ys.sum()).backward()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_outputs():
    """Per-step logits of a CUDA state (cuBLAS may pick other kernels with
    and without grad: compared closely, not bitwise)."""
    model = Logits()
    model.cell.cuda()
    model.out.cuda()
    model.params = list(model.cell.parameters()) + list(model.out.parameters())
    model.xs, model.targets = model.xs.cuda(), model.targets.cuda()
    model.h0 = tuple(x.cuda() for x in model.h0)
    want = gradients(model, lambda step, h0: unrolled(step, h0, T))
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, T, params=model.params, strategy="revolve", slots=3))
    for key in want:
        for x, y in zip(want[key], got[key]):
            torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)
