#!/usr/bin/env python3
"""The planner against measured runs with the host tier's slots compressed
(tier.host.compression = "fixed-rate", docs/compression.md, *The host tier*).

Each round runs, one process each, the reaction-diffusion example (8 MiB
float64 states, 200 steps, a host budget of 32 MiB, revolve, no disk) with
the host tier at rate 16, and `ebb run --data smooth` with the same
configuration, then predicts each with `ebb plan` from the figures that run
measured: its mean forward and reverse step times and the host codec's
rates (ebb_run_stats.host_compress_bps, host_decompress_bps). It prints
measured and predicted wall times, their difference, and each plan command.
Also the uncompressed example, for the recomputations it saves.

    benchmarks/host_compressed_plan.py --build build/release --rounds 3
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CONFIG = """[run]
strategy = "revolve"
[tier.disk]
enabled = false
[tier.host]
budget = "32 MiB"
{compression}"""
FIXED = 'compression = "fixed-rate"\nrate = 16\nelement = "float64"\n'


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    if not m:
        sys.exit("no match for %r in:\n%s" % (pattern, text))
    return float(m.group(1))


def example(build, config):
    """The example's wall, step counts, step times and host codec rates."""
    text = run([os.path.join(build, "examples", "example_reaction_diffusion"),
                "--config", config, "--no-check"])
    r = {"wall_s": number(r"time\s+wall ([\d.]+) s", text),
         "forward_steps": number(r"forward steps\s+(\d+) =", text),
         "recomputed": number(r"\+ (\d+) recomputed", text),
         "reverse_steps": number(r"reverse steps (\d+)", text),
         "forward_cb_s": number(r"inside forward steps ([\d.]+) s", text),
         "reverse_cb_s": number(r"reverse steps ([\d.]+) s;", text),
         "stall_s": number(r"copies \d+ \([\d.]+ s\); stalled ([\d.]+) s", text),
         "slots": number(r"host\s+schedule slots\s+(\d+)", text)}
    if "compressed slots" in text:
        r["compress_Bps"] = 1e9 * number(r"a thread compresses ([\d.e+-]+) GB/s", text)
        r["decompress_Bps"] = 1e9 * number(r"decompresses ([\d.e+-]+) GB/s", text)
    return r


def ebb_run(build, config):
    out = json.loads(run([os.path.join(build, "tools", "ebb"), "run", "--config", config,
                          "--strategy", "revolve", "--steps", "200", "--state-size", "8MiB",
                          "--data", "smooth", "--json"]))
    return {"wall_s": out["wall_s"], "forward_steps": out["forward_steps"],
            "recomputed": out["recomputed_steps"], "reverse_steps": out["reverse_steps"],
            "forward_cb_s": out["forward_callback_s"], "reverse_cb_s": out["reverse_callback_s"],
            "stall_s": out["stall_s"], "slots": out["slots"]["host"],
            "compress_Bps": out["host_compress_Bps"],
            "decompress_Bps": out["host_decompress_Bps"]}


def plan(build, config, m):
    cmd = [os.path.join(build, "tools", "ebb"), "plan", "--steps", "200",
           "--state-size", "8MiB", "--config", config, "--strategy", "revolve",
           "--forward-ms", "%.4f" % (1e3 * m["forward_cb_s"] / m["forward_steps"]),
           "--reverse-ms", "%.4f" % (1e3 * m["reverse_cb_s"] / m["reverse_steps"])]
    if "compress_Bps" in m:
        cmd += ["--host-compress-rate", "%.0f" % m["compress_Bps"],
                "--host-decompress-rate", "%.0f" % m["decompress_Bps"]]
    p = json.loads(run(cmd + ["--json"]))
    return p, " ".join(cmd[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ebb-host-plan-")
    plain, fixed = os.path.join(tmp, "plain.toml"), os.path.join(tmp, "fixed.toml")
    with open(plain, "w") as f:
        f.write(CONFIG.format(compression=""))
    with open(fixed, "w") as f:
        f.write(CONFIG.format(compression=FIXED))
    print("| round | run | host slots | recomputed (planned) | measured wall s | predicted s "
          "| predicted / measured - 1 | stalled s (planned) | codec GB/s a thread: compress, "
          "decompress |")
    print("|---|---|---|---|---|---|---|---|---|")
    commands = []
    for k in range(1, a.rounds + 1):
        for name, fn, cfg in (("example, uncompressed", example, plain),
                              ("example, fixed-rate 16", example, fixed),
                              ("ebb run --data smooth, fixed-rate 16", ebb_run, fixed)):
            m = fn(a.build, cfg)
            p, cmd = plan(a.build, cfg, m)
            commands.append(cmd)
            rates = ("%.3g, %.3g" % (m["compress_Bps"] / 1e9, m["decompress_Bps"] / 1e9)
                     if "compress_Bps" in m else "-")
            print("| %d | %s | %d | %d (%d) | %.3f | %.3f | %+.1f %% | %.3f (%.3f) | %s |" % (
                k, name, m["slots"], m["recomputed"], p["recomputed_steps"], m["wall_s"],
                p["predicted_s"], 100 * (p["predicted_s"] / m["wall_s"] - 1), m["stall_s"],
                p["predicted_stall_s"], rates))
            sys.stdout.flush()
    print("\nplan commands (configurations in %s):" % tmp)
    for c in commands:
        print("  ebb " + c)


if __name__ == "__main__":
    main()
