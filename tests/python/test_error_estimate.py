"""ebb.Run(error_samples=K): the lossy error estimate in stats() and info():
exactly 0 without compression, the sampled states' true error with the host
slots compressed at a fixed rate."""

import math
import struct

import ebb

VALUES, N, K = 2048, 40, 8


def _step(i, x):
    return [0.9 * v + 0.1 * math.sin(0.001 * j + 0.01 * i) for j, v in enumerate(x)]


def _run(config, exact):
    """Both sweeps with K samples; the stats, the info and each step's true
    relative error of the state the reverse callback was handed."""
    pack = struct.Struct(f"{VALUES}d")
    true_rel = {}

    def forward(i, a, b):
        b[:] = pack.pack(*_step(i, pack.unpack(bytes(a))))

    def reverse(i, x):
        got, want = pack.unpack(bytes(x)), exact[i]
        dd = sum((g - w) ** 2 for g, w in zip(got, want))
        true_rel[i] = math.sqrt(dd / sum(w * w for w in want))

    with ebb.Run(pack.size, N, forward, reverse, config=config, strategy="revolve", slots=3,
                 element="float64", error_samples=K) as run:
        run.forward(pack.pack(*exact[0]))
        run.reverse()
        return run.stats(), run.info(), true_rel


def test_the_estimate_is_zero_exact_and_the_true_error_lossy():
    exact = [[math.cos(0.002 * j) for j in range(VALUES)]]
    for i in range(N):
        exact.append(_step(i, exact[-1]))
    plain = ebb.Config({"tier": {"disk": {"enabled": False}}})
    st, info, _ = _run(plain, exact)
    assert info.error_samples == K and info.error_sample_bytes == K * VALUES * 8
    assert st.error_samples == K and st.error_samples_differ == 0
    assert st.state_rel_error_max == 0.0 and st.gradient_rel_error_estimate == 0.0

    lossy = ebb.Config({"tier": {"disk": {"enabled": False},
                                 "host": {"compression": "fixed-rate", "rate": 16}}})
    st, info, true_rel = _run(lossy, exact)
    sampled = [(2 * j + 1) * N // (2 * K) for j in range(K)]
    want = max(true_rel[s] for s in sampled)
    assert st.error_samples == K and st.error_samples_differ > 0
    assert want > 0 and math.isclose(st.state_rel_error_max, want, rel_tol=1e-9), \
        (st.state_rel_error_max, want)
    assert st.gradient_rel_error_estimate > 0
