"""Our expected-score table build against dlangk/yatzy's Rust solver, side by side (issue 37
item 1).  Run: python bench/bench_dlangk.py --dlangk DIR [--runs N] [--rules yatzy]

DIR is a work tree of github.com/dlangk/yatzy.  Its crate needs axum, tokio, rand 0.9 and
more from crates.io, which this machine cannot reach; its solver needs only rayon.  So the
solver's own modules (constants, dice_mechanics, game_mechanics, phase0_tables, types,
widget_solver, batched_solver, simd, state_computation, env_config: copied unchanged) are
built as a crate of their own with a stub of its storage module (no table file read or
written) and a main that does what `yatzy-precompute --force` does: the lookup tables, then
the whole backward induction.  Offline, rayon from Debian's packages (`apt-get install
librust-rayon-dev`: /usr/share/cargo/registry), release profile and target-cpu=native as
upstream's Cargo.toml and .cargo/config.toml have them; RAYON_NUM_THREADS=2.

Alternating runs, whole processes: theirs, then ours (`dicesolver.yahtzee_value` into an
empty table folder: import, build, store); medians, their ratio, the CPU seconds of each
(user + sys), ours without the interpreter's start, the load average before and after.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULES = [
    "constants",
    "dice_mechanics",
    "game_mechanics",
    "phase0_tables",
    "types",
    "widget_solver",
    "batched_solver",
    "simd",
    "state_computation",
    "env_config",
]
STORAGE = """//! Stub of the upstream storage module: the benchmark neither loads nor saves tables.
use crate::types::YatzyContext;
pub fn state_file_path(_theta: f32) -> String { String::new() }
pub fn load_all_state_values(_c: &mut YatzyContext, _f: &str) -> bool { false }
pub fn save_all_state_values(_ctx: &YatzyContext, _f: &str) {}
"""
MAIN = """// yatzy-precompute --force, no table file: lookup tables, whole backward induction.
fn main() {
    let _threads = yatzy::env_config::init_rayon_threads();
    let mut ctx = yatzy::types::YatzyContext::new_boxed();
    yatzy::phase0_tables::precompute_lookup_tables(&mut ctx);
    yatzy::state_computation::compute_all_state_values_nocache(&mut ctx);
}
"""
CARGO = """[package]
name = "yatzy"
version = "1.0.0"
edition = "2021"
[dependencies]
rayon = "1.6"
[profile.release]
opt-level = 3
lto = "fat"
codegen-units = 1
panic = "abort"
"""
CONFIG = """[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
[build]
rustflags = ["-C", "target-cpu=native"]
"""
OURS = (
    "import sys, time, dicesolver as ds; t = time.perf_counter(); "
    "ds.yahtzee_value(sys.argv[1], tables=sys.argv[2]); print(time.perf_counter() - t)"
)


def build(src: Path, crate: Path) -> Path:
    """The crate made and built (cargo release); its binary."""
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / ".cargo").mkdir(exist_ok=True)
    for m in MODULES:
        shutil.copy(src / "solver" / "src" / f"{m}.rs", crate / "src" / f"{m}.rs")
    (crate / "src" / "storage.rs").write_text(STORAGE)
    mods = [*MODULES, "storage"]
    lib = "#![allow(clippy::needless_range_loop)]\n" + "".join(f"pub mod {m};\n" for m in mods)
    (crate / "src" / "lib.rs").write_text(lib)
    (crate / "src" / "main.rs").write_text(MAIN)
    (crate / "Cargo.toml").write_text(CARGO)
    (crate / ".cargo" / "config.toml").write_text(CONFIG)
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    subprocess.run([cargo, "build", "--release", "-q"], cwd=crate, check=True)
    return crate / "target" / "release" / "yatzy"


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall and CPU (user + sys) seconds of a whole process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, out


def load_avg() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlangk", required=True, help="a work tree of dlangk/yatzy")
    ap.add_argument("--crate", default=None, help="where to build it (default: a new folder)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="yatzy")
    a = ap.parse_args()
    crate = Path(a.crate or tempfile.mkdtemp(prefix="dlangk-"))
    binary = build(Path(a.dlangk), crate)
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    print(f"before: {load_avg()}")
    theirs, ours = [], []
    for _ in range(a.runs):
        theirs.append(timed([str(binary)], env))
        ours.append(timed([sys.executable, "-c", OURS, a.rules, tempfile.mkdtemp()]))
    print(f"after: {load_avg()}")
    for name, runs in (("dlangk/yatzy (Rust, 2 threads)", theirs), ("ours", ours)):
        walls = ", ".join(f"{r[0]:.2f}" for r in runs)
        wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{name}: median {wall:.2f} s wall ({walls}), {cpu:.2f} s CPU")
    inner = statistics.median(float(r[2].split()[-1]) for r in ours)
    print(f"ours inside the process (imports, build, store): {inner:.2f} s")
    ratio = statistics.median(r[0] for r in ours) / statistics.median(r[0] for r in theirs)
    print(f"ours / theirs (whole processes, wall medians): {ratio:.2f}x")


if __name__ == "__main__":
    main()
