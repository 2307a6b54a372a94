"""ebb.torch.scan with chunk=k: ebb's schedule over chunks of k user steps,
each chunk's reverse one autograd call over its k steps. Bitwise against
the unrolled loop for random k, lengths, shapes, strategies and budgets,
with the models that exercise the order of additions (a weight used twice
per step, a loss only every third step, tuple states, an integer
component, global-generator dropout), per-step outputs and until=."""

import functools
import math
import random

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
import test_torch_outputs as outs  # noqa: E402
from models import LSTM, MODELS, RNN, GlobalDropout, unrolled  # noqa: E402
from test_torch_gradients import assert_bitwise, gradients  # noqa: E402
from test_torch_until import stop_rule, unrolled_until  # noqa: E402
import test_torch_semantics as sem  # noqa: E402
import test_torch_streams as streams  # noqa: E402
from test_torch_streams import device  # noqa: E402,F401 - the stand-in device fixture

# strategies that take n, with their slots (None: the budget's)
KNOWN = ["store-all", "revolve", "online", "multistage", "async"]


def _scan(strategy, *args, **kw):
    try:
        return ebb.torch.scan(*args, strategy=strategy, **kw)
    except ebb.EbbError as e:
        if strategy == "async" and e.status == ebb.status.UNSUPPORTED:
            pytest.skip(f"async is not in this library yet: {e.message}")
        raise


def _slots(rng, strategy):
    if strategy == "store-all":
        return None, None
    slots = rng.randint(2 if strategy == "online" else 1, 6)
    return slots, (rng.randint(1, 12) if strategy == "multistage" else None)


def _model(rng, name, steps):
    """The model `name` with random shapes where it has them."""
    if name == "lstm":
        return LSTM(batch=rng.randint(1, 3), inputs=rng.randint(1, 5),
                    hidden=rng.choice([1, 3, 8]), steps=steps, seed=rng.randrange(100))
    if name == "rnn":
        return RNN(batch=rng.randint(1, 3), hidden=rng.choice([2, 5, 9]), steps=steps,
                   seed=rng.randrange(100))
    return MODELS[name]()


@pytest.mark.parametrize("seed", range(40))
def test_random_chunks_bitwise_equal_unrolled(seed, disk_config):
    """Random model, k, n (k need not divide n; k > n is one chunk),
    strategy and budget: the unrolled loop's gradients, bit for bit."""
    rng = random.Random(seed)
    name = sorted(MODELS)[seed % len(MODELS)]
    steps = rng.randint(1, 70)
    k = rng.choice([2, 3, 4, 5, 7, 8, 16, rng.randint(2, 80)])
    strategy = rng.choice(KNOWN)
    slots, disk_slots = _slots(rng, strategy)
    model = _model(rng, name, steps)
    h0_grad = rng.random() < 0.8
    want = gradients(model, lambda step, h0: unrolled(step, h0, steps), h0_grad)
    report = {}
    got = gradients(model, lambda step, h0: _scan(
        strategy, step, h0, steps, params=model.params, slots=slots, disk_slots=disk_slots,
        config=disk_config, report=report, chunk=k), h0_grad)
    what = f"{name} n={steps} k={k} {strategy} C={slots} D={disk_slots}"
    assert_bitwise(want, got, what)
    chunks = math.ceil(steps / min(k, steps))
    assert report["chunk"] == min(k, steps)
    assert report["info"].steps == chunks and report["stats"].reverse_steps == chunks, what


@pytest.mark.parametrize("name", sorted(outs.MODELS))
@pytest.mark.parametrize("k", [2, 3, 7])
def test_outputs_chunked_bitwise(name, k):
    """Per-step outputs, including a y_t that is the step's h or h_next
    (its slice enters that state's gradient first, inside a chunk too)."""
    model = outs.MODELS[name]()
    T = outs.T
    want = outs.gradients(model, lambda step, h0: outs.unrolled(step, h0, T))
    got = outs.gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, T, params=model.params, strategy="revolve", slots=3, chunk=k))
    assert_bitwise(want, got, f"{name} k={k}")


@pytest.mark.parametrize("name", sorted(outs.MODELS))
@pytest.mark.parametrize("k", [3, 8])
def test_outputs_chunked_with_until_bitwise(name, k):
    model = outs.MODELS[name]()
    until = model.until
    want = outs.gradients(model, lambda step, h0: outs.unrolled(step, h0, until=until))
    report = {}
    got = outs.gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, None, until=until, params=model.params, strategy="online", slots=3,
        report=report, chunk=k))
    n = want["ys"][0].shape[0]
    assert got["ys"][0].shape[0] == n and report["info"].steps == math.ceil(n / k)
    assert_bitwise(want, got, f"{name} k={k} until")


@pytest.mark.parametrize("k", [2, 5, 9])
@pytest.mark.parametrize("model_cls,threshold", [(LSTM, 0.008), (RNN, 0.3),
                                                 (GlobalDropout, 0.3)])
@pytest.mark.parametrize("limit", [None, 13])
def test_until_chunked_stops_inside_a_chunk(model_cls, threshold, k, limit):
    """n unknown: the sequence may end in the middle of a chunk (the last
    chunk is then shorter); the steps= limit too."""
    model = model_cls()
    until = stop_rule(threshold)
    ran = {}

    def ref(step, h0):
        h, loss, ran["n"] = unrolled_until(step, h0, until, limit)
        return h, loss

    want = gradients(model, ref)
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, limit, until=until, params=model.params, strategy="online", slots=2,
        report=report, chunk=k))
    assert_bitwise(want, got, f"{model_cls.__name__} k={k} until limit={limit}")
    assert report["info"].steps == math.ceil(ran["n"] / k)


@pytest.mark.parametrize("k", [1, 4])
def test_hash_audit_names_the_step_inside_a_chunk(k):
    """audit="hash" checks each user step of a chunk: global randomness with
    preserve_rng_state=False is named at the first step the reverse sweep
    runs again: 13 one by one, 12 in the last chunk (12, 13)."""
    model = RNN()

    def step(h, t):
        h_next, loss_t = model.step(h, t)
        return h_next + 1e-3 * torch.rand(h.shape, dtype=h.dtype), loss_t

    h_n, loss = ebb.torch.scan(step, model.h0.clone().requires_grad_(), 14,
                               params=model.params, strategy="revolve", slots=2,
                               audit="hash", preserve_rng_state=False, chunk=k)
    with pytest.raises(RuntimeError, match=f"step {13 if k == 1 else 12} is not deterministic"):
        (loss + h_n.sum()).backward()


def test_chunked_audit_hash_passes_a_deterministic_step():
    model = GlobalDropout()
    want = gradients(model, lambda step, h0: unrolled(step, h0, 30))
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, 30, params=model.params, strategy="revolve", slots=2, audit="hash",
        chunk=4))
    assert_bitwise(want, got)


def test_missing_parameter_named_with_chunks():
    model = RNN()
    with pytest.raises(ValueError, match="not in params"):
        ebb.torch.scan(model.step, model.h0, 10, params=[model.W], chunk=3)


def test_chunk_argument_checked():
    model = RNN()
    for bad, err, msg in [(0, ValueError, "chunk must be an integer >= 1.*got 0"),
                          (-2, ValueError, "got -2"),
                          (1.5, TypeError, "chunk must be an integer >= 1.*got float 1.5"),
                          (True, TypeError, "got bool True"),
                          ("4", TypeError, "got str '4'")]:
        with pytest.raises(err, match=msg):
            ebb.torch.scan(model.step, model.h0, 10, params=model.params, chunk=bad)
    report = {}
    ebb.torch.scan(model.step, model.h0, 10, params=model.params, chunk=torch.tensor(4),
                   report=report)
    assert report["chunk"] == 4 and report["info"].steps == 3
    ebb.torch.scan(model.step, model.h0, 10, params=model.params, report=report)
    assert report["chunk"] == 1 and report["info"].steps == 10


# -- what a step sees, with chunks ---------------------------------------------

@pytest.mark.parametrize("k", [3, 8])
def test_a_step_keeping_h_keeps_its_values_with_chunks(k):
    """Inside a chunk a step is handed the previous step's h_next itself: a
    kept h still holds its own step's state after the forward and after the
    backward, and the gradients are the unrolled loop's."""
    ref = sem.Keeper()
    h0 = tuple(x.clone().requires_grad_() for x in ref.model.h0)
    ref.model.total(*unrolled(ref.step, h0, sem.T)).backward()
    states = {t: tuple(x.detach().clone() for x in hc) for t, hc in ref.kept}
    want = sem._grads(ref.model, h0)
    kp = sem.Keeper()
    h0 = tuple(x.clone().requires_grad_() for x in kp.model.h0)
    h_n, loss = ebb.torch.scan(kp.step, h0, sem.T, params=kp.model.params, strategy="revolve",
                               slots=2, chunk=k)
    kp.model.total(h_n, loss).backward()
    assert_bitwise(want, sem._grads(kp.model, h0))
    assert len(kp.kept) >= 2 * sem.T
    for t, hc in kp.kept:
        for x, y in zip(hc, states[t]):
            assert torch.equal(x.detach(), y), f"a kept h of step {t} changed"


@pytest.mark.parametrize("k", [2, 7])
def test_autocast_with_chunks_equals_checkpoint(k):
    """Under autocast (no weight cache) the chunks' gradients are
    torch.utils.checkpoint's bit for bit, as one step's are."""
    model = sem.Mixed()
    want = sem._autocast_grads(model, sem._checkpointed(model), False)
    got = sem._autocast_grads(model, lambda h0: ebb.torch.scan(
        model.step, h0, sem.T, params=model.params, strategy="revolve", slots=3, chunk=k),
        False)
    assert_bitwise(want, got)


def test_in_place_edit_inside_a_chunk_is_refused():
    """Step 5 is the second step of chunk 1 (k = 4): it is handed step 4's
    h_next, and editing it is refused as an edit of x_5."""
    model = RNN()

    def step(h, t):
        if t == 5:
            with torch.no_grad():
                h.clamp_(-0.5, 0.5)
        return model.step(h, t)

    with pytest.raises(RuntimeError, match=r"step\(h, 5\) modified its input h in place"):
        ebb.torch.scan(step, model.h0.clone().requires_grad_(), 12, params=model.params,
                       chunk=4)


@pytest.mark.parametrize("k", [3, 5])
def test_generators_kept_by_step_with_chunks(k, monkeypatch):
    """The generators' states kept by step (a CUDA state's, or with a lossy
    tier), driven on a CPU state by a configuration that says a tier is
    lossy while none compresses: global-generator dropout stays bitwise,
    the states being set at each chunk's first step."""
    monkeypatch.setattr(ebb.Config, "lossy_tier", lambda self: "host")
    for name in ("global_dropout", "loss_dropout"):
        model = MODELS[name]()
        want = gradients(model, lambda step, h0: unrolled(step, h0, 30))
        seen = {}

        def run(step, h0):
            res = ebb.torch.scan(step, h0, 30, params=model.params, strategy="revolve",
                                 slots=2, chunk=k)
            seen["ctx"] = res[1].grad_fn.sweep.s.context
            return res

        got = gradients(model, run)
        assert_bitwise(want, got, f"{name} k={k}")
        assert seen["ctx"].rng and not seen["ctx"].in_state


# -- CUDA streams, with chunks ------------------------------------------------

def test_a_chunk_is_one_callback_on_the_backward_stream(device, monkeypatch):
    """With the stand-in streams of test_torch_streams.py and the backward on
    a thread whose current stream is another one: each chunk's callback
    waits for ebb's stream before its first step and has ebb's wait for it
    after its last, its steps all queued on the backward's stream; the
    gradients are the unrolled loop's."""
    model = LSTM(steps=streams.T)
    want = streams.reference(model)
    monkeypatch.setattr(ebb.torch, "scan", functools.partial(ebb.torch.scan, chunk=4))
    other = streams.StubStream("autograd", 0x2000, device.log)
    forward, backward, got = streams.run(device, model, other)
    assert_bitwise(want, got)
    assert all(e[0] == "step" and e[2] == "ebb" for e in forward), forward
    groups, i = [], 0
    while i < len(backward):
        assert backward[i] == ("wait", "autograd", "ebb"), (i, backward[i:i + 3])
        j = i + 1
        while backward[j][0] == "step":
            assert backward[j][2] == "autograd", backward[j]
            j += 1
        assert backward[j] == ("wait", "ebb", "autograd"), (j, backward[j - 1:j + 2])
        groups.append([e[1] for e in backward[i + 1:j]])
        i = j + 1
    assert all(g == list(range(g[0], g[0] + 4)) and g[0] % 4 == 0 for g in groups), groups
    assert sum(1 for g in groups if g[0] == 0) >= 1 and len(groups) >= streams.T // 4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("k", [3, 8])
def test_cuda_chunks(k):
    """A CUDA state in chunks (cuBLAS may pick other kernels with and without
    grad: compared closely, as test_torch_gradients.py's CUDA test)."""
    model = LSTM()
    model.cell.cuda()
    model.head.cuda()
    model.xs = model.xs.cuda()
    model.h0 = tuple(x.cuda() for x in model.h0)
    model.params = list(model.cell.parameters())
    want = gradients(model, lambda step, h0: unrolled(step, h0, 40))
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, 40, params=model.params, strategy="revolve", slots=3, chunk=k))
    for key in ("params", "h0", "h_n"):
        for x, y in zip(want[key], got[key]):
            torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)


# -- chunk="auto" ---------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_auto_chunk_keeps_memory_and_recomputation(seed):
    """chunk="auto": the slots ebb is given plus the graph of k steps take no
    more than chunk=1's slots plus one step's graph, the schedule recomputes
    no more user steps than chunk=1's (revolve's counts), doubling k would
    break one of the two, and the gradients are the unrolled loop's. Seeds
    6 and 7: more slots than store-all needs (chunk=1 uses n - 1 of them)."""
    rng = random.Random(seed)
    steps = rng.randint(20, 400) if seed < 6 else rng.randint(10, 30)
    slots = rng.randint(2, 40) if seed < 6 else 64
    # seeds 6 and 7: a step's graph of several slots, where capping the
    # budget at store-all's matters
    model = LSTM(batch=rng.randint(1, 3) if seed < 6 else 4, inputs=3,
                 hidden=rng.choice([2, 8, 32]) if seed < 6 else 256, steps=steps, seed=seed)
    want = gradients(model, lambda step, h0: unrolled(step, h0, steps))
    report = {}
    got = gradients(model, lambda step, h0: ebb.torch.scan(
        step, h0, steps, params=model.params, strategy="revolve", slots=slots,
        report=report, chunk="auto"))
    assert_bitwise(want, got, f"n={steps} slots={slots}")
    k, g = report["chunk"], report["chunk_step_bytes"]
    c = report["info"].slots["host"]
    size = sum(x.numel() * x.element_size() for x in model.h0) + torch.get_rng_state().numel()
    stride = ebb.runtime.slot_stride("host", sum((n + 63) // 64 * 64 for n in (
        *[x.numel() * x.element_size() for x in model.h0], torch.get_rng_state().numel())))
    assert g is not None and g > size
    budget = min(slots, steps - 1) * stride
    limit = ebb.plan(steps, min(slots, steps - 1)).recomputed_steps

    def fits(k, c):
        m = math.ceil(steps / k)
        return c >= 1 and c * stride + (k - 1) * g <= budget and \
            ebb.plan(m, min(c, m)).recomputed_steps * k <= limit

    if k == 1:
        assert c == min(slots, steps)  # ebb's slots as asked
    else:
        assert fits(k, c), (k, c, g)
    k2 = 2 * k
    assert k2 > steps or not fits(k2, (budget - (k2 - 1) * g) // stride), (k, c, g)
    assert report["info"].steps == math.ceil(steps / k)


def test_auto_chunk_picks_chunks_where_the_budget_allows():
    """The tiny LSTM with 64 slots of a 2,000-step sequence: a step's graph is
    a fraction of a slot, and chunks are taken."""
    model = LSTM(batch=1, inputs=4, hidden=16, steps=2000)
    report = {}
    ebb.torch.scan(model.step, model.h0, 2000, params=model.params, strategy="revolve",
                   slots=64, report=report, chunk="auto")
    assert report["chunk"] >= 16


@pytest.mark.parametrize("case", ["until", "no_grad", "multistage"])
def test_auto_chunk_is_one_where_it_cannot_judge(case, disk_config):
    model = RNN()
    report = {}
    kw = dict(params=model.params, report=report, chunk="auto")
    if case == "until":
        ebb.torch.scan(model.step, model.h0, None, until=lambda h, t: t == 30,
                       strategy="online", slots=4, **kw)
    elif case == "no_grad":
        with torch.no_grad():
            ebb.torch.scan(model.step, model.h0, 40, strategy="revolve", slots=4, **kw)
    else:
        ebb.torch.scan(model.step, model.h0, 40, strategy="multistage", slots=2, disk_slots=8,
                       config=disk_config, **kw)
    assert report["chunk"] == 1 and report["chunk_step_bytes"] is None


def test_auto_chunk_still_names_a_missing_parameter():
    model = RNN()
    with pytest.raises(ValueError, match="not in params"):
        ebb.torch.scan(model.step, model.h0, 40, params=[model.W], strategy="revolve", slots=8,
                       chunk="auto")
