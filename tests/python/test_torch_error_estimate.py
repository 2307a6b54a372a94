"""ebb.torch.scan(error_samples=K): the lossy error estimate in report's
"stats" after the backward: exactly 0 with the host slots uncompressed, above
0 with them at a fixed rate, and of the order of the gradients' true error
there (autograd's as the exact ones)."""

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402

T, K, H = 60, 8, 64


def _model():
    g = torch.Generator().manual_seed(5)
    w = (torch.randn(H, H, generator=g, dtype=torch.float64) / H ** 0.5).requires_grad_()
    h0 = torch.randn(H, generator=g, dtype=torch.float64).requires_grad_()
    return w, h0


def _step(w):
    def step(h, t):
        h = torch.tanh(w @ h + 0.1 * t)
        return h, (h * h).sum()
    return step


def _grads(config, report):
    w, h0 = _model()
    _, loss = ebb.torch.scan(_step(w), h0, T, params=[w], strategy="revolve", slots=4,
                             config=config, report=report, error_samples=K)
    loss.backward()
    return torch.cat([w.grad.flatten(), h0.grad.flatten()])


def _exact():
    w, h0 = _model()
    h, loss = h0, 0
    for t in range(T):
        h, l_t = _step(w)(h, t)
        loss = loss + l_t
    loss.backward()
    return torch.cat([w.grad.flatten(), h0.grad.flatten()])


def test_scan_reports_the_estimate():
    exact = _exact()
    plain = {}
    g = _grads(ebb.Config({"tier": {"disk": {"enabled": False}}}), plain)
    assert torch.equal(g, exact)
    st = plain["stats"]
    assert st.error_samples == K and st.error_samples_differ == 0
    assert st.gradient_rel_error_estimate == 0.0 and st.state_rel_error_max == 0.0

    lossy = {}
    g = _grads(ebb.Config({"tier": {"disk": {"enabled": False},
                                    "host": {"compression": "fixed-rate", "rate": 16}}}), lossy)
    st = lossy["stats"]
    true = ((g - exact).norm() / exact.norm()).item()
    assert st.error_samples == K and st.error_samples_differ > 0, st
    assert st.state_rel_error_max > 0 and st.gradient_rel_error_estimate > 0, st
    assert true > 0
    # of the order of the true error (the estimate is measured, not a bound)
    assert true / 30 < st.gradient_rel_error_estimate < true * 30, \
        (st.gradient_rel_error_estimate, true)
