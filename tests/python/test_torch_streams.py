"""The CUDA stream of ebb.torch.scan's callbacks, without a GPU: autograd may
run the backward on a device thread whose current stream is not the one
ebb was given at scan(). Each callback takes the current stream where it
runs and, when it is another one, orders it after ebb's stream before the
step and ebb's stream after it once the step is queued. Driven here on a
CPU state through a stand-in for torch.cuda's stream interface
(current_stream, Stream.cuda_stream, Stream.wait_stream), with the
backward run on a thread whose current stream differs, as autograd's device
threads may; the real device is scripts/gpu-check.sh's."""

import threading

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402
from models import LSTM, unrolled  # noqa: E402
from test_torch_gradients import assert_bitwise  # noqa: E402

T = 24


class StubStream:
    """What the binding uses of a torch.cuda.Stream; records the waits."""

    def __init__(self, name, handle, log):
        self.name, self.cuda_stream, self.log = name, handle, log

    def wait_stream(self, other):
        self.log.append(("wait", self.name, other.name))


class Device:
    """A stand-in device: each thread's current stream (ebb's at first)."""

    def __init__(self):
        self.log = []
        self.ebb = StubStream("ebb", 0x1000, self.log)
        self.local = threading.local()

    def current_stream(self, device=None):
        return getattr(self.local, "stream", self.ebb)


@pytest.fixture
def device(monkeypatch):
    dev = Device()
    monkeypatch.setattr(ebb.torch, "_streams_for",
                        lambda d: ebb.torch._Streams(d, dev.ebb, current=dev.current_stream))
    return dev


def run(device, model, backward_stream, strategy="revolve", slots=3):
    """scan on this thread (current stream: ebb's), the backward on another
    thread whose current stream is `backward_stream` (None: ebb's)."""
    def step(hc, t):
        device.log.append(("step", t, device.current_stream().name))
        return model.step(hc, t)

    h0 = tuple(x.clone().requires_grad_() for x in model.h0)
    for p in model.params:
        p.grad = None
    h_n, loss = ebb.torch.scan(step, h0, T, params=model.params, strategy=strategy,
                               slots=slots)
    forward = list(device.log)
    device.log.clear()
    failure = []

    def backward():
        if backward_stream is not None:
            device.local.stream = backward_stream
        try:
            model.total(h_n, loss).backward()
        except BaseException as e:  # pragma: no cover - reported below
            failure.append(e)

    th = threading.Thread(target=backward)
    th.start()
    th.join()
    if failure:
        raise failure[0]
    got = {"params": [p.grad.clone() for p in model.params], "h0": [x.grad.clone() for x in h0]}
    return forward, list(device.log), got


def reference(model):
    h0 = tuple(x.clone().requires_grad_() for x in model.h0)
    for p in model.params:
        p.grad = None
    model.total(*unrolled(model.step, h0, T)).backward()
    return {"params": [p.grad.clone() for p in model.params], "h0": [x.grad.clone() for x in h0]}


@pytest.mark.parametrize("strategy,slots", [("revolve", 3), ("store-all", None), ("online", 2)])
def test_backward_on_another_stream_is_ordered_against_ebbs(device, strategy, slots):
    model = LSTM(steps=T)
    want = reference(model)
    other = StubStream("autograd", 0x2000, device.log)
    forward, backward, got = run(device, model, other, strategy, slots)
    assert_bitwise(want, got)
    # the forward sweep ran where ebb's stream is current: nothing to order
    assert all(e[0] == "step" and e[2] == "ebb" for e in forward), forward
    # every call in the backward (recomputations and reverse steps) queued
    # its work on the backward's stream, after ebb's stream and before it
    steps = [i for i, e in enumerate(backward) if e[0] == "step"]
    assert len(steps) >= T
    for i in steps:
        assert backward[i][2] == "autograd", backward[i]
        assert backward[i - 1] == ("wait", "autograd", "ebb"), (i, backward[i - 1:i + 2])
        assert backward[i + 1] == ("wait", "ebb", "autograd"), (i, backward[i - 1:i + 2])
    assert len(backward) == 3 * len(steps), "a wait outside a callback"


def test_backward_on_ebbs_stream_waits_for_nothing(device):
    model = LSTM(steps=T)
    want = reference(model)
    same = StubStream("ebb-again", device.ebb.cuda_stream, device.log)  # the same handle
    for stream in (None, same):
        forward, backward, got = run(device, model, stream)
        assert_bitwise(want, got)
        assert all(e[0] == "step" for e in forward + backward), backward


def test_the_stream_is_taken_at_each_callback(device):
    """A step that moves the current stream (a side stream for part of the
    sequence) is followed at every callback, not only at the first."""
    model = LSTM(steps=T)
    side = StubStream("side", 0x3000, device.log)

    def step(hc, t):
        device.log.append(("step", t, device.current_stream().name))
        # from step 10 on, the callbacks after this one run on the side stream
        device.local.stream = side if t >= 10 else device.ebb
        return model.step(hc, t)

    ebb.torch.scan(step, model.h0, T, params=model.params, strategy="revolve", slots=3)
    log = device.log
    steps = [i for i, e in enumerate(log) if e[0] == "step"]
    for i in steps:
        if log[i][2] == "side":
            assert log[i - 1] == ("wait", "side", "ebb") and log[i + 1] == ("wait", "ebb", "side")
        else:
            assert log[i - 1][0] == "step" or i == 0 or log[i - 1] == ("wait", "ebb", "side")
    assert sum(log[i][2] == "side" for i in steps) >= T - 11


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_scan_on_a_side_stream_backward_on_another():
    """The real thing: scan under a side stream, the backward from another
    thread on the default stream; gradients close to autograd's."""
    model = LSTM(steps=T)
    model.cell.cuda()
    model.head.cuda()
    model.xs = model.xs.cuda()
    model.h0 = tuple(x.cuda() for x in model.h0)
    model.params = list(model.cell.parameters())
    want = reference(model)
    h0 = tuple(x.clone().requires_grad_() for x in model.h0)
    for p in model.params:
        p.grad = None
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        h_n, loss = ebb.torch.scan(model.step, h0, T, params=model.params,
                                   strategy="revolve", slots=3)
        total = model.total(h_n, loss)
    torch.cuda.current_stream().wait_stream(side)
    th = threading.Thread(target=total.backward)
    th.start()
    th.join()
    torch.cuda.synchronize()
    got = {"params": [p.grad for p in model.params], "h0": [x.grad for x in h0]}
    for key in want:
        for x, y in zip(want[key], got[key]):
            torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)
