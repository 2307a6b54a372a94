"""What the acceptance-scenario scripts (async_scenarios.py,
compression_scenarios.py) share: running ebb, the disk tier's directory,
measuring the disk's write time for one state, and the PASS/FAIL ending."""
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    """cmd's stdout; its stderr and the exit code end the script if it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def workspace(disk_dir):
    """A temporary directory (kept alive by the returned object) and the disk
    tier's directory: disk_dir, or one inside the temporary directory."""
    tmp = tempfile.TemporaryDirectory()
    disk = disk_dir or os.path.join(tmp.name, "disk")
    os.makedirs(disk, exist_ok=True)
    return tmp, disk


def measure_write(ebb, cfg, state, bench_out):
    """`ebb bench` of cfg's disk tier with `state`-byte states, its JSON kept
    in bench_out (for `ebb plan --bench`): the seconds to write one state and
    the disk's figures."""
    out = run([ebb, "bench", "--config", cfg, "--tier", "disk", "--size", str(state),
               "--total", "1GiB", "--json"])
    with open(bench_out, "w") as f:
        f.write(out)
    d = json.loads(out)["tiers"]["disk"]
    return state / (d["write_GBps"] * 1e9), d


def finish(checks, record, json_path):
    """Prints every check as PASS or FAIL, writes everything to json_path
    (when given); the exit code: 0 when every check passed."""
    print()
    for name, ok, detail in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"checks": checks, "scenarios": record}, f, indent=1)
    return 0 if all(ok for _, ok, _ in checks) else 1
