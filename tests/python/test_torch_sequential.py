"""ebb.torch.sequential: a stack of different blocks under a memory budget;
gradients, BatchNorm's running statistics and the random generators bitwise
plain autograd's, the budget kept, bad input refused."""

import random

import pytest

torch = pytest.importorskip("torch")

import ebb  # noqa: E402
import ebb.torch  # noqa: E402


def stack(seed, depth):
    """Blocks of random widths, with BatchNorm and dropout in some."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    widths = [rng.choice([4, 8, 32, 96, 160]) for _ in range(depth + 1)]
    blocks = []
    for a, b in zip(widths, widths[1:]):
        layers = [torch.nn.Linear(a, b)]
        if rng.random() < 0.5:
            layers.append(torch.nn.BatchNorm1d(b))
        layers.append(torch.nn.Tanh())
        if rng.random() < 0.4:
            layers.append(torch.nn.Dropout(0.3))
        blocks.append(torch.nn.Sequential(*layers))
    return blocks, widths[0]


def train(blocks, inp, leaves, memory, tapes):
    """One step of the blocks on inp: the gradients (parameters, then the
    leaves'), the buffers and a draw of the generator after the backward;
    `memory` None: plain autograd."""
    report = {}
    if memory is None:
        y = inp
        for b in blocks:
            y = b(y)
    else:
        y = ebb.torch.sequential(blocks, inp, memory, report=report, tapes=tapes)
    y.pow(2).sum().backward()
    grads = [p.grad for b in blocks for p in b.parameters()] + [t.grad for t in leaves]
    bufs = [t.clone() for b in blocks for t in b.buffers()]
    return grads, bufs, torch.rand(3), report


def run(seed, depth, memory, x_grad=True, tapes=True):
    """train() on a stack() and an input of its width."""
    blocks, width = stack(seed, depth)
    torch.manual_seed(1000 + seed)
    x = torch.randn(6, width, requires_grad=x_grad)
    return train(blocks, x, [x] if x_grad else [], memory, tapes)


@pytest.mark.parametrize("seed", range(12))
def test_gradients_buffers_and_generators_are_autograds(seed):
    rng = random.Random(seed)
    depth = rng.randint(1, 12)
    memory = rng.choice([0.01, 0.1, 0.3, 0.6, 1.0])
    x_grad = seed % 3 != 0
    g0, b0, r0, _ = run(seed, depth, None, x_grad)
    g1, b1, r1, report = run(seed, depth, memory, x_grad)
    assert len(g0) == len(g1) and all(torch.equal(a, b) for a, b in zip(g0, g1))
    assert all(torch.equal(a, b) for a, b in zip(b0, b1)), "running statistics differ"
    assert torch.equal(r0, r1), "the generator is not where autograd leaves it"
    sizes = report["profile"]["state_bytes"]
    budget = max(int(memory * sum(sizes)), sizes[0])
    assert report["peak_kept_bytes"] <= budget


@pytest.mark.parametrize("seed", range(12))
def test_the_budget_holds_for_any_measured_costs(seed):
    """The costs a profile measures pick the schedule; whichever it is, the
    inputs kept at once never pass the budget (a schedule may store a state
    in the first sweep and free it before the turn)."""
    rng = random.Random(seed)
    blocks, width = stack(seed, rng.randint(1, 12))
    x = torch.randn(6, width)
    sizes = ebb.torch.profile_blocks(blocks, x)["state_bytes"]
    for _ in range(20):
        memory = rng.choice([0.01, 0.1, 0.3, 0.6, 1.0])
        prof = {"forward_s": [rng.uniform(1e-5, 1e-3) for _ in sizes],
                "reverse_s": [rng.uniform(1e-5, 2e-3) for _ in sizes], "state_bytes": sizes}
        report = {}
        y = ebb.torch.sequential(blocks, x, memory, profile=prof, report=report)
        y.pow(2).sum().backward()
        budget = max(int(memory * sum(sizes)), sizes[0])
        assert report["peak_kept_bytes"] <= budget, (memory, prof)


def test_a_small_budget_recomputes_and_a_full_one_does_not():
    _, _, _, full = run(3, 10, 1.0, tapes=False)
    assert (full["forward_runs"], full["tape_runs"]) == (10, 0)
    _, _, _, small = run(3, 10, 0.15, tapes=False)
    assert small["forward_runs"] > 10
    assert small["peak_kept_bytes"] < full["peak_kept_bytes"]


def tape_profile(blocks, x):
    """A profile where keeping a tape pays: a reverse step from x_i costs
    its forward and its backward, from the tape its backward alone."""
    sizes = ebb.torch.profile_blocks(blocks, x)["state_bytes"]
    n = len(blocks)
    return {"forward_s": [1.0] * n, "reverse_s": [3.0] * n, "backward_s": [2.0] * n,
            "state_bytes": sizes, "tape_bytes": [2 * s for s in sizes]}


@pytest.mark.parametrize("seed", range(8))
def test_tapes_spare_reruns_and_keep_gradients_bitwise(seed):
    """Room for every tape: each block runs once, keeping its graph, and no
    reverse step reruns it; room for half the inputs: what fits. Gradients,
    buffers and generators are autograd's either way, the budget kept."""
    rng = random.Random(seed)
    depth = rng.randint(2, 12)
    blocks, width = stack(seed, depth)
    prof = tape_profile(blocks, torch.randn(6, width))
    everything = sum(prof["state_bytes"]) + sum(prof["tape_bytes"])
    for memory, all_taped in ((everything, True), (sum(prof["state_bytes"]) // 2, False)):
        g0, b0, r0, _ = run(seed, depth, None)
        blocks, width = stack(seed, depth)
        torch.manual_seed(1000 + seed)
        x = torch.randn(6, width, requires_grad=True)
        report = {}
        # units of the sizes' common divisor: every tape fits exactly
        y = ebb.torch.sequential(blocks, x, memory, profile=prof, report=report,
                                 memory_levels=65536)
        y.pow(2).sum().backward()
        g1 = [p.grad for b in blocks for p in b.parameters()] + [x.grad]
        assert all(torch.equal(a, b) for a, b in zip(g0, g1))
        assert all(torch.equal(a, b.clone()) for a, b in
                   zip(b0, [t for b in blocks for t in b.buffers()]))
        assert torch.equal(r0, torch.rand(3))
        assert report["peak_kept_bytes"] <= memory
        if all_taped:
            assert (report["tape_runs"], report["forward_runs"]) == (depth, 0)


def test_tapes_false_keeps_none():
    blocks, width = stack(4, 6)
    x = torch.randn(6, width, requires_grad=True)
    prof = tape_profile(blocks, x)
    report = {}
    y = ebb.torch.sequential(blocks, x, 10**9, profile=prof, report=report, tapes=False)
    y.sum().backward()
    assert report["tape_runs"] == 0
    assert ebb.chain.TAPE not in [a[0] for a in report["plan"].actions]


def test_the_profile_measures_tapes():
    blocks = [torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.Tanh()),
              torch.nn.Sequential(torch.nn.Linear(64, 4))]
    x = torch.randn(16, 8)
    prof = ebb.torch.profile_blocks(blocks, x)
    # Tanh saves its output (16 x 64 floats), which is also the block's
    # output: counted once; the first Linear's saved input is x_0, not counted
    assert prof["tape_bytes"][0] == 16 * 64 * 4
    # the second block keeps its output (16 x 4) and saves its input x_1
    # (not counted) and its weight (a parameter: not counted)
    assert prof["tape_bytes"][1] == 16 * 4 * 4
    assert all(b > 0 for b in prof["backward_s"])


def test_the_schedule_is_the_chains_optimum():
    blocks, width = stack(5, 8)
    x = torch.randn(6, width, requires_grad=True)
    prof = {"forward_s": [1, 4, 2, 5, 4, 9, 3, 2], "reverse_s": [9, 3, 6, 4, 9, 5, 1, 1],
            "state_bytes": [2, 1, 4, 5, 3, 3, 2, 2]}
    report = {}
    y = ebb.torch.sequential(blocks, x, 7, profile=prof, report=report)
    y.sum().backward()
    assert report["plan"].cost == ebb.chain_plan(prof["forward_s"], prof["reverse_s"],
                                                 prof["state_bytes"], 7).cost


def test_a_kept_input_changed_in_place_is_named():
    class Bad(torch.nn.Module):
        def forward(self, h):
            h.mul_(2)  # changes its input, which the schedule kept
            return h * 1

    blocks = [torch.nn.Linear(4, 4), Bad(), torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)]
    x = torch.randn(2, 4, requires_grad=True)
    prof = {"forward_s": [1] * 4, "reverse_s": [1] * 4, "state_bytes": [32] * 4}
    y = ebb.torch.sequential(blocks, x, 128, profile=prof)
    with pytest.raises(RuntimeError, match="x_1, kept for the backward, was modified in place"):
        y.sum().backward()


def test_bad_input_is_refused():
    lin = [torch.nn.Linear(4, 4) for _ in range(3)]
    x = torch.randn(2, 4, requires_grad=True)
    with pytest.raises(ValueError, match="takes 1 .. 100000 blocks, got 100001"):
        ebb.torch.sequential([torch.nn.Identity()] * 100001, x, 1.0)
    with pytest.raises(ValueError, match=r"fraction .* is in \(0, 1\], got 1.5"):
        ebb.torch.sequential(lin, x, 1.5)
    with pytest.raises(ebb.EbbError, match="does not hold x_0"):
        ebb.torch.sequential(lin, x, 8)
    with pytest.raises(ValueError, match="profile has 2 forward"):
        ebb.torch.sequential(lin, x, 1.0, profile={"forward_s": [1, 1], "reverse_s": [1, 1],
                                                   "state_bytes": [1, 1]})


def test_without_grad_it_is_the_plain_composition():
    """Nothing to differentiate: each block runs once, nothing is profiled or
    planned (a bad budget is not even looked at)."""
    lin = [torch.nn.Linear(4, 4) for _ in range(3)]
    runs = []

    def counted(i):
        def f(h):
            runs.append(i)
            return lin[i](h)
        return f

    x = torch.randn(2, 4)
    with torch.no_grad():
        want = lin[2](lin[1](lin[0](x)))
        for memory in (1.0, 1):
            runs.clear()
            report = {}
            y = ebb.torch.sequential([counted(i) for i in range(3)], x, memory, report=report)
            assert torch.equal(y, want) and runs == [0, 1, 2] and report == {}
    # no parameters and an input without grad: the same under grad mode
    runs.clear()
    fixed = [lambda h: h * 2, lambda h: h + 1]
    assert torch.equal(ebb.torch.sequential(fixed, x, 1.0), x * 2 + 1)


@pytest.mark.parametrize("seed", range(6))
def test_a_block_used_several_times_sums_as_autograd(seed):
    """A module that appears at several places of the stack: its gradient is
    the sum over its uses in autograd's order (the last use first), summed as
    each use is reversed."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    shared = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh())
    other = [torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Sigmoid())
             for _ in range(3)]
    blocks = [rng.choice([shared, shared, *other]) for _ in range(rng.randint(4, 10))]
    blocks[0] = blocks[-1] = blocks[len(blocks) // 2] = shared
    x = torch.randn(5, 16, requires_grad=True)
    params = [p for m in [shared, *other] for p in m.parameters()]

    def grads(y):
        for p in params:
            p.grad = None
        x.grad = None
        (y * torch.linspace(-1, 1, 16)).pow(2).sum().backward()
        return [p.grad for p in params] + [x.grad]

    y = x
    for b in blocks:
        y = b(y)
    want = grads(y)
    got = grads(ebb.torch.sequential(blocks, x, rng.choice([0.2, 0.5, 1.0])))
    for a, b in zip(want, got):
        assert (a is None and b is None) or torch.equal(a, b)


class _Split(torch.nn.Module):
    """x, or (x, z) with z taking no gradient -> (x, h, idx): x carried on,
    idx an integer tensor that the later blocks gather with."""

    def __init__(self, w):
        super().__init__()
        self.lin = torch.nn.Linear(w, w)
        self.w = w

    def forward(self, s):
        x, z = s if isinstance(s, (tuple, list)) else (s, 0)
        idx = torch.arange(self.w).flip(0)
        return x, torch.tanh(self.lin(x) + z), idx


class _Carry(torch.nn.Module):
    """(x, h, idx) -> (x, h', idx): h' from h and the carried x."""

    def __init__(self, w, rng):
        super().__init__()
        self.lin = torch.nn.Linear(w, w)
        self.mix = torch.nn.Linear(w, w, bias=False)
        self.norm = torch.nn.BatchNorm1d(w) if rng.random() < 0.5 else torch.nn.Identity()
        self.drop = torch.nn.Dropout(0.2) if rng.random() < 0.4 else torch.nn.Identity()

    def forward(self, s):
        x, h, idx = s
        return x, self.drop(torch.tanh(self.norm(self.lin(h)) + self.mix(x)))[:, idx], idx


class _Merge(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.lin = torch.nn.Linear(w, 3)

    def forward(self, s):
        x, h, _ = s
        return self.lin(h + x)


def tuple_run(seed, depth, memory, tapes=True, pair=False):
    """train() on a stack whose states are tuples (x carried beside h, an
    integer tensor among them); the input a pair where `pair`."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    w = rng.choice([4, 16, 48])
    blocks = [_Split(w)] + [_Carry(w, rng) for _ in range(depth)] + [_Merge(w)]
    torch.manual_seed(3000 + seed)
    x = torch.randn(6, w, requires_grad=True)
    inp = (x, torch.randn(6, w)) if pair else x
    if pair and seed % 2 == 0:
        inp = list(inp)  # handed on as given
    return train(blocks, inp, [x], memory, tapes)


@pytest.mark.parametrize("seed", range(10))
def test_states_of_several_tensors_keep_gradients_bitwise(seed):
    """Blocks that take and return tuples (the input carried beside the
    hidden state, an integer tensor with them), the input a tensor or a
    pair: gradients, running statistics and the generator bitwise plain
    autograd's, at random budgets with and without tapes; the budget
    counts every tensor of a kept state."""
    rng = random.Random(seed)
    depth = rng.randint(1, 10)
    memory = rng.choice([0.01, 0.2, 0.5, 1.0])
    tapes = seed % 2 == 0
    pair = seed % 3 == 1
    g0, b0, r0, _ = tuple_run(seed, depth, None, pair=pair)
    g1, b1, r1, report = tuple_run(seed, depth, memory, tapes, pair)
    assert len(g0) == len(g1) and all(torch.equal(a, b) for a, b in zip(g0, g1))
    assert all(torch.equal(a, b) for a, b in zip(b0, b1)), "running statistics differ"
    assert torch.equal(r0, r1)
    sizes = report["profile"]["state_bytes"]
    # x_1 on: x, h and idx (int64) together
    w = sizes[0] // (48 if pair else 24)  # x (and z): 6 rows of float32
    assert sizes[0] % (48 if pair else 24) == 0 and sizes[1] == 56 * w  # x, h, int64 idx
    if not tapes:
        assert report["peak_kept_bytes"] <= max(int(memory * sum(sizes)), sizes[0])


def offload_train(seed, depth, memory, offload, monkeypatch, tapes=True):
    """run() with offload=, x on the CPU standing in for a GPU's (the states
    offloaded are then copies in the same memory: what is checked is that
    the plan's moves are run as it says)."""
    from ebb import _torch_chain
    monkeypatch.setattr(_torch_chain, "_OFFLOAD_DEVICES", ("cuda", "cpu"))
    blocks, width = stack(seed, depth)
    torch.manual_seed(1000 + seed)
    x = torch.randn(6, width, requires_grad=True)
    report = {}
    y = ebb.torch.sequential(blocks, x, memory, report=report, tapes=tapes, offload=offload)
    y.pow(2).sum().backward()
    grads = [p.grad for b in blocks for p in b.parameters()] + [x.grad]
    bufs = [t.clone() for b in blocks for t in b.buffers()]
    return grads, bufs, torch.rand(3), report


@pytest.mark.parametrize("seed", range(8))
def test_offload_keeps_gradients_bitwise_and_the_device_budget(seed, monkeypatch):
    rng = random.Random(seed)
    depth = rng.randint(2, 12)
    memory = rng.choice([0.01, 0.1, 0.3])
    rate = rng.choice([1e6, 1e8, 1e10, 1e15])
    g0, b0, r0, _ = run(seed, depth, None)
    g1, b1, r1, report = offload_train(seed, depth, memory, rate, monkeypatch,
                                       tapes=seed % 2 == 0)
    assert len(g0) == len(g1) and all(torch.equal(a, b) for a, b in zip(g0, g1))
    assert all(torch.equal(a, b) for a, b in zip(b0, b1)), "running statistics differ"
    assert torch.equal(r0, r1), "the generator is not where autograd leaves it"
    sizes = report["profile"]["state_bytes"]
    assert report["peak_kept_bytes"] <= max(int(memory * sum(sizes)), sizes[0])
    plan = report["plan"]
    offloaded = any(p == "host" or (isinstance(p, tuple) and p[1] == "host")
                    for p in plan.places)
    assert (report["peak_offloaded_bytes"] > 0) == offloaded
    assert (report["moved_bytes"] > 0) == offloaded


def test_free_copies_spare_every_rerun(monkeypatch):
    """Copies at no cost: every state the reverse sweep needs is offloaded
    and brought back, none recomputed; on the device x_0's room alone."""
    depth = 10
    _, _, _, kept = run(5, depth, 0.01, tapes=False)
    assert kept["forward_runs"] > depth
    g0, _, _, _ = run(5, depth, None)
    g1, _, _, report = offload_train(5, depth, 0.01, 1e18, monkeypatch, tapes=False)
    assert all(torch.equal(a, b) for a, b in zip(g0, g1))
    assert (report["forward_runs"], report["tape_runs"]) == (depth, 0)
    sizes = report["profile"]["state_bytes"]
    assert report["peak_offloaded_bytes"] >= sum(sizes[1:]) - max(sizes)
    assert report["peak_kept_bytes"] <= max(int(0.01 * sum(sizes)), sizes[0])


def test_offload_is_refused_off_a_gpu_and_for_bad_rates(monkeypatch):
    blocks, width = stack(1, 3)
    x = torch.randn(6, width, requires_grad=True)
    with pytest.raises(ValueError, match="offload moves states from a GPU to host memory; "
                                         "x is on cpu"):
        ebb.torch.sequential(blocks, x, 0.1, offload=True)
    from ebb import _torch_chain
    monkeypatch.setattr(_torch_chain, "_OFFLOAD_DEVICES", ("cuda", "cpu"))
    for bad in (-1, 0, "fast"):
        with pytest.raises(ValueError, match="bytes a second each way > 0"):
            ebb.torch.sequential(blocks, x, 0.1, offload=bad)


def test_a_state_evicted_to_host_memory_comes_back(monkeypatch):
    """A chain whose schedule moves a kept state from the device to host
    memory (EVICT: rare, found by a search over random chains) runs it as
    the plan says: gradients bitwise, the device's budget kept."""
    from ebb import _torch_chain
    from ebb.chain import EVICT
    monkeypatch.setattr(_torch_chain, "_OFFLOAD_DEVICES", ("cuda", "cpu"))
    widths = [4, 160, 96, 96, 8, 8]
    torch.manual_seed(11)
    blocks = [torch.nn.Sequential(torch.nn.Linear(a, b), torch.nn.Tanh())
              for a, b in zip(widths, widths[1:])]
    x = torch.randn(6, 4, requires_grad=True)
    prof = {"forward_s": [1, 3, 5, 2, 3], "reverse_s": [5, 1, 9, 6, 3],
            "state_bytes": [6 * 4 * w for w in widths[:5]]}
    g0, _, _, _ = train(blocks, x, [x], None, False)
    for b in blocks:
        b.zero_grad()
    x.grad = None
    report = {}
    y = ebb.torch.sequential(blocks, x, 3924, profile=prof, report=report, offload=1000)
    y.pow(2).sum().backward()
    g1 = [p.grad for b in blocks for p in b.parameters()] + [x.grad]
    assert any(a[0] == EVICT for a in report["plan"].actions)
    assert all(torch.equal(a, b) for a, b in zip(g0, g1))
    assert report["peak_kept_bytes"] <= 3924
    assert report["peak_offloaded_bytes"] > 0
