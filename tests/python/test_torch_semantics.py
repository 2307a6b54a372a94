"""What a torch.utils.checkpoint user expects of ebb.torch.scan, under every
strategy: a step that keeps references to h (bitwise against autograd), a
forward under autocast with the backward outside it (against
torch.utils.checkpoint); and what is refused or caught instead of a silent
wrong gradient: a step editing h in place, a loss_t that is not
deterministic (audit "hash"). Global-generator dropout is in
test_torch_gradients.py (models GlobalDropout, LossDropout)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from models import LSTM, RNN, LossDropout, unrolled  # noqa: E402
from test_torch_gradients import STRATEGIES, assert_bitwise  # noqa: E402

T = 40


def _scan(step, h0, params, strategy, slots, disk_slots, config, **kw):
    try:
        return ebb.torch.scan(step, h0, T, params=params, strategy=strategy, slots=slots,
                              disk_slots=disk_slots, config=config, **kw)
    except ebb.EbbError as e:
        if strategy == "async" and e.status == ebb.status.UNSUPPORTED:
            pytest.skip(f"async is not in this library yet: {e.message}")
        raise


def _grads(model, h0):
    return {"params": [p.grad.clone() for p in model.params],
            "h0": [x.grad.clone() for x in h0]}


# -- a step that keeps references to h ---------------------------------------

class Keeper:
    """The LSTM, its step keeping every h it is handed (as a step logging its
    hidden states does)."""

    def __init__(self):
        self.model = LSTM(steps=T)
        self.kept = []

    def step(self, hc, t):
        self.kept.append((t, hc))
        return self.model.step(hc, t)


@pytest.mark.parametrize("strategy,slots,disk_slots", STRATEGIES)
def test_a_step_keeping_h_keeps_its_own_steps_values(strategy, slots, disk_slots,
                                                     disk_config):
    ref = Keeper()
    h0 = tuple(x.clone().requires_grad_() for x in ref.model.h0)
    ref.model.total(*unrolled(ref.step, h0, T)).backward()
    states = {t: tuple(x.detach().clone() for x in hc) for t, hc in ref.kept}
    want = _grads(ref.model, h0)

    k = Keeper()
    h0 = tuple(x.clone().requires_grad_() for x in k.model.h0)
    h_n, loss = _scan(k.step, h0, k.model.params, strategy, slots, disk_slots, disk_config)
    # every tensor the step was handed still holds its own step's state, after
    # the forward sweep (step 0 twice: its trial with grad enabled first) ...
    assert len(k.kept) == T + 1
    for t, hc in k.kept:
        for x, y in zip(hc, states[t]):
            assert torch.equal(x, y), f"the kept h of step {t} changed after the forward"
    k.model.total(h_n, loss).backward()
    assert_bitwise(want, _grads(k.model, h0), strategy)
    # ... and after the backward (recomputations and reverse steps included)
    assert len(k.kept) >= 2 * T
    for t, hc in k.kept:
        for x, y in zip(hc, states[t]):
            assert torch.equal(x.detach(), y), f"a kept h of step {t} changed"


@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 3)])
def test_reading_kept_h_after_the_run_is_gone_is_safe(strategy, slots):
    """Before: the kept tensors aliased ebb's freed buffers and reading them
    crashed the interpreter (SIGSEGV). Run in a subprocess for that reason."""
    code = textwrap.dedent(f"""
        import gc, torch, ebb.torch
        from models import LSTM
        model, kept = LSTM(steps=200, hidden=64), []
        def step(hc, t):
            kept.append((t, hc))
            return model.step(hc, t)
        h_n, loss = ebb.torch.scan(step, model.h0, 200, params=model.params,
                                   strategy={strategy!r}, slots={slots!r})
        model.total(h_n, loss).backward()
        del h_n, loss
        gc.collect()
        junk = [torch.randn(100_000) for _ in range(64)]   # reuse the freed memory
        ref, h = [], model.h0
        for t in range(200):
            ref.append(h)
            h = model.step(h, t)[0]
        assert len(kept) >= 2 * 200, len(kept)
        for t, hc in kept:
            for x, y in zip(hc, ref[t]):
                assert torch.equal(x, y), t
        print("ok", sum(float(x.sum()) for _, hc in kept for x in hc))
        """)
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join([here, env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.startswith("ok"), (
        f"exit {p.returncode}: {p.stdout[-500:]} {p.stderr[-2000:]}")


# -- autocast -----------------------------------------------------------------

class Mixed:
    """An RNN with Linear layers in float32, run under CPU autocast (bfloat16
    matrix products), its backward outside autocast: the usual AMP pattern."""

    def __init__(self, seed=9):
        torch.manual_seed(seed)
        self.cell = torch.nn.Linear(8, 8)
        self.inp = torch.nn.Linear(4, 8)
        g = torch.Generator().manual_seed(seed)
        self.xs = torch.randn(T, 3, 4, generator=g)
        self.params = list(self.cell.parameters()) + list(self.inp.parameters())
        self.h0 = (torch.randn(3, 8, generator=g),)

    def step(self, h, t):
        (h,) = h
        h = torch.tanh(self.cell(h) + self.inp(self.xs[t])).float()
        return (h,), h.pow(2).mean()

    def total(self, h_n, loss):
        return loss + h_n[0].sum()


def _autocast_grads(model, run, cache):
    for p in model.params:
        p.grad = None
    h0 = tuple(x.clone().requires_grad_() for x in model.h0)
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=cache):
        h_n, loss = run(h0)
    model.total(h_n, loss).backward()     # outside autocast
    return _grads(model, h0)


def _checkpointed(model):
    def run(h0):
        h, loss = h0, None
        for t in range(T):
            h, lt = torch.utils.checkpoint.checkpoint(model.step, h, t, use_reentrant=False)
            loss = lt if loss is None else loss + lt
        return h, loss
    return run


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("strategy,slots,disk_slots", STRATEGIES)
def test_autocast_forward_backward_outside(strategy, slots, disk_slots, cache, disk_config):
    model = Mixed()
    want = _autocast_grads(model, _checkpointed(model), cache)
    got = _autocast_grads(model, lambda h0: _scan(model.step, h0, model.params, strategy,
                                                  slots, disk_slots, disk_config), cache)
    if not cache:
        assert_bitwise(want, got, strategy)
        return
    # autocast's weight cache: autograd casts each parameter once for the
    # whole forward and sums its gradient over the steps in bfloat16; ebb
    # casts it at each step and sums in float32. h0's gradient is bitwise,
    # the parameters' within bfloat16's rounding (summed in bfloat16 they are 30 % off).
    assert_bitwise({"h0": want["h0"]}, {"h0": got["h0"]}, strategy)
    for x, y in zip(want["params"], got["params"]):
        assert ((x - y).norm() / x.norm()).item() < 2e-2


# -- refused or caught --------------------------------------------------------

@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 2)])
def test_a_step_editing_h_in_place_is_refused(strategy, slots):
    model = RNN()

    def step(h, t):
        if t == 5:
            with torch.no_grad():
                h.clamp_(-0.5, 0.5)
        return model.step(h, t)

    with pytest.raises(RuntimeError, match=r"step\(h, 5\) modified its input h in place"):
        h_n, loss = ebb.torch.scan(step, model.h0.clone().requires_grad_(), T,
                                   params=model.params, strategy=strategy, slots=slots)
        model.total(h_n, loss).backward()


def test_a_step_editing_an_integer_state_part_in_place_is_refused():
    def step(hn, t):
        h, n = hn
        n += 1
        return (torch.tanh(h), n.clone()), h.sum()

    with pytest.raises(RuntimeError, match=r"step\(h, 0\) modified its input h\[1\] in place"):
        ebb.torch.scan(step, (torch.ones(3), torch.zeros((), dtype=torch.int64)), T)


@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 2)])
def test_audit_hash_covers_loss_t(strategy, slots):
    """h_next deterministic, loss_t not: named by the audit."""
    model = RNN()
    calls = {}

    def step(h, t):
        calls[t] = calls.get(t, 0) + 1
        h, _ = model.step(h, t)
        return h, h.pow(2).sum() * (1 + 0.01 * calls[t])

    h_n, loss = ebb.torch.scan(step, model.h0, T, params=model.params, strategy=strategy,
                               slots=slots, audit="hash")
    with pytest.raises((RuntimeError, ebb.EbbError), match="not deterministic"):
        model.total(h_n, loss).backward()


def test_audit_hash_names_global_dropout_in_loss_without_rng_preservation():
    model = LossDropout()
    h_n, loss = ebb.torch.scan(model.step, model.h0, T, params=model.params,
                               strategy="revolve", slots=3, audit="hash",
                               preserve_rng_state=False)
    with pytest.raises((RuntimeError, ebb.EbbError), match="not deterministic"):
        model.total(h_n, loss).backward()


@pytest.mark.parametrize("strategy,slots", [("store-all", None), ("revolve", 3)])
def test_audit_hash_accepts_global_dropout(strategy, slots):
    model = LossDropout()
    h0 = model.h0.clone().requires_grad_()
    torch.manual_seed(3)
    h_n, loss = ebb.torch.scan(model.step, h0, T, params=model.params, strategy=strategy,
                               slots=slots, audit="hash")
    model.total(h_n, loss).backward()
    got = {"params": [model.W.grad.clone()], "h0": [h0.grad.clone()]}
    model.W.grad = None
    h0 = model.h0.clone().requires_grad_()
    torch.manual_seed(3)
    model.total(*unrolled(model.step, h0, T)).backward()
    assert_bitwise({"params": [model.W.grad], "h0": [h0.grad]}, got)


def test_generator_states_by_step_for_a_cuda_state(monkeypatch):
    """The bookkeeping of a CUDA state's generators (kept by step where they
    changed), driven here with a stand-in for the device generator: every
    later call of step t gets the states its first forward saw."""
    device = {"state": torch.zeros(2, dtype=torch.uint8)}
    monkeypatch.setattr(torch.cuda, "get_rng_state", lambda d: device["state"].clone())
    monkeypatch.setattr(torch.cuda, "set_rng_state",
                        lambda s, d: device.__setitem__("state", s.clone()))
    ctx = ebb.torch._Context(torch.device("cuda", 0), True)
    assert not ctx.in_state
    torch.manual_seed(0)
    seen = {}
    for t in range(12):
        ctx.before(t, None, True)
        seen[t] = (torch.get_rng_state(), device["state"].clone())
        if t % 3 == 0:          # steps 0, 3, 6, 9 draw from the CPU generator
            torch.rand(5)
        if t % 4 == 1:          # steps 1, 5, 9 from the device's
            device["state"] = device["state"] + 1
    assert len(ctx.by_step) < 12, "an unchanged state was kept again"
    for t in [11, 4, 0, 9, 7, 1, 10, 5, 3, 8, 2, 6]:
        torch.rand(3)
        device["state"] = device["state"] + 7
        ctx.before(t, None, False)
        assert torch.equal(torch.get_rng_state(), seen[t][0]), t
        assert torch.equal(device["state"], seen[t][1]), t
