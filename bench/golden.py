"""Golden commands: every `zilch` and `yahtzee` subcommand run once as text and once with
--json (where it takes it), their output recorded, so that a refactor of the package's
internals can be checked not to change any command's output.

    python bench/golden.py record BINDIR OUTDIR     # e.g. /tmp/venv-base/bin /tmp/golden-base
    python bench/golden.py compare OUTDIR_A OUTDIR_B

`record` runs COMMANDS (below) in order with the `zilch` and `yahtzee` executables of BINDIR
(a virtual environment's bin/ holding an install of the code to record), in a fresh
temporary folder: one tables folder for all commands (DICESOLVER_TABLES, so every table is
built once), HOME, TMPDIR, the numba and matplotlib caches and the commands' working folder
(the files they read and write) all inside it; PYTHONHASHSEED=0, COLUMNS=100.  It writes
one file per command into OUTDIR (NAME.out: the command, its exit code, stdout, stderr, and
the files it wrote: size, SHA-256 and first lines; pictures only whether they were
written), and index.txt listing them in order.  Standard output and error are normalised:
the temporary paths become <TABLES>, <WORK>, <TMP>, <BIN>, and progress lines and timings
("... steps after 3 s ...", "done in 1.2 s") are dropped, as they vary from run to run.
Per-command times go to stderr.  A run takes 6 to 9 minutes on this two-core machine
while others work on it (about 3 minutes of CPU; `yahtzee evaluate`, the longest, about a
minute).  `--keep` keeps the temporary folder (the tables, the files written) to look at.

`compare` prints every command whose record differs (a unified diff, truncated) and those
missing on one side; exit code 1 if any, 0 if all are equal.

Commands that depend on earlier ones (verify and review read what simulate and play wrote)
come after them; `zilch tables` comes last and lists every table the whole run stored
(their names and sizes: a change in what is cached shows there).  Known expected
difference: `zilch play` and `zilch review` refuse pyramiding today (zilch-play-pyramiding,
zilch-review-pyramiding).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# ---------------------------------------------------------------------------------------
# Files the commands read, written into the working folder before the run.

PENALTY_RULES = """\
name = "farkle-penalty"
description = "Farkle with a 500-point penalty for the third zilch in a row (golden.py)."
dice = 6
set_aside = "any"
hot_dice = "optional"
entry_minimum = 0
bank_minimum = 0

[faces]
1 = [100, 0, 1000, 2000, 3000, 4000]
2 = [0, 0, 200, 400, 600, 800]
3 = [0, 0, 300, 600, 900, 1200]
4 = [0, 0, 400, 800, 1200, 1600]
5 = [50, 0, 500, 1000, 1500, 2000]
6 = [0, 0, 600, 1200, 1800, 2400]

[[patterns]]
kind = "straight"
points = 1500
faces = [1, 2, 3, 4, 5, 6]

[[patterns]]
kind = "three_pairs"
distinct = true
points = 750

[game]
target = 10000
end = "final_round"
reach = "at_least"
three_zilch_penalty = 500
"""

POLICY = """\
name = "thresholds"
[bank]
thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
default = 300
entry = 500
bank_at_target = true
[set_aside]
rule = "per_die"
"""

PENALTY_POLICY = """\
name = "careful"
[bank]
thresholds = { 6 = 3000, 5 = 2000, 4 = 1000, 3 = 400, 2 = 300, 1 = 300 }
[bank.zilches.2]
thresholds = { 5 = 2000, 4 = 500, 3 = 300 }
"""

FIXTURES = {
    "penalty.toml": PENALTY_RULES,
    "policy.toml": POLICY,
    "penalty-policy.toml": PENALTY_POLICY,
    # turn scores that do not fit farkle's optimal play (verify: exit 1)
    "bad-results.txt": "300\n300\n350\n0\n300\n400\n" + "300\n" * 10,
    # single rolls (verify --rolls)
    "rolls.txt": "1 1 5 2 3 4\n6 6 6 2 3 4\n1 2 3 4 5 6\n2 2 3 3 4 6\n",
    # a hand-written log under pyramiding (review refuses pyramiding today)
    "pyramiding.jsonl": '{"rules": "zilch-pyramiding", "dice": 6, "turn": 0, '
    '"roll": [1, 1, 5, 3, 4, 6], "keep": [1], "then": "roll"}\n',
    # a hand-written log with a mistake, a zilch and a piggyback offer
    "hand.jsonl": '{"rules": "farkle", "dice": 6, "turn": 0, "roll": [1, 1, 5, 3, 4, 6], '
    '"keep": [1, 1, 5], "then": "roll"}\n'
    '{"rules": "farkle", "dice": 3, "turn": 250, "roll": [2, 3, 4], "then": "zilch"}\n'
    '{"rules": "zonk-chicago", "take_over": [3, 400], "then": "fresh"}\n',
    # answers for `play`: "best" to the end (the input running out ends a game)
    "best.txt": "best\n" * 400,
    # hints, a refused answer, a keep typed, roll/bank typed, then leaving mid-game
    "mixed.txt": "hint\n1 5\nhint\nr\nbest\nb\nbest\nbest\nbest\nhint\nbest\nquit\n",
    # real dice typed for two people (--dice-from-input), a bad roll among them
    "typed-dice.txt": "1 1 5 2 3 4\n1 1\nr\n5 5 5 2\nhint\n5 5 5\nb\n7 7\n2 3 4 6 6 2\n"
    "1 2 3 4 5 6\nbest\nbest\n",
    # yahtzee: hints, a keep typed, a box typed, then "best" to the end
    "yahtzee.txt": "hint\n3 3\nbest\nbest\nhint\nfull house\nbest\n" + "best\n" * 120,
    "yahtzee-quit.txt": "hint\nall\nnone\nbest\nchance\nquit\n",
}


# ---------------------------------------------------------------------------------------
# The commands.  `line` is split like a shell line; {J} becomes "" for the text run and
# "-json" for the --json run (so the two write different files); {TABLES} the tables folder.


@dataclass(frozen=True)
class Cmd:
    name: str  # the record's file name (unique)
    line: str  # the command line, the program first
    json: bool = False  # also run with --json
    stdin: str | None = None  # a fixture fed as standard input
    files: tuple[str, ...] = ()  # files it writes: size, hash and head recorded
    pictures: tuple[str, ...] = ()  # pictures it writes: only whether they were written


def c(name, line, json=False, stdin=None, files=(), pictures=()):
    return Cmd(name, line, json, stdin, tuple(files), tuple(pictures))


ZILCH_HELP = [
    "rules", "advise", "strategy", "odds", "endgame", "game", "export", "evaluate",
    "simulate", "verify", "plot", "plot endgame", "plot distribution", "plot game",
    "review", "play", "tables", "serve",
]  # fmt: skip
YAHTZEE_HELP = ["rules", "advise", "value", "evaluate", "simulate", "export", "review", "play"]

COMMANDS: list[Cmd] = [
    # --- help and version
    c("zilch-help", "zilch --help"),
    c("zilch-version", "zilch --version"),
    *[c(f"zilch-{h.replace(' ', '-')}-help", f"zilch {h} --help") for h in ZILCH_HELP],
    c("yahtzee-help", "yahtzee --help"),
    *[c(f"yahtzee-{h}-help", f"yahtzee {h} --help") for h in YAHTZEE_HELP],
    # --- rules
    c("zilch-rules", "zilch rules", json=True),
    c("zilch-rules-farkle", "zilch rules farkle", json=True),
    c("zilch-rules-zonk-detroit", "zilch rules zonk-detroit", json=True),
    c("zilch-rules-challenge", "zilch rules zilch-challenge", json=True),
    c("zilch-rules-pyramiding", "zilch rules zilch-pyramiding", json=True),
    c("zilch-rules-file", "zilch rules penalty.toml", json=True),
    # --- odds
    c("zilch-odds-farkle", "zilch odds --rules farkle", json=True),
    c("zilch-odds-farkle-3", "zilch odds --rules farkle --dice 3", json=True),
    c("zilch-odds-zilch-online-2", "zilch odds --rules zilch-online --dice 2", json=True),
    c("zilch-odds-zonk-detroit", "zilch odds --rules zonk-detroit", json=True),
    # --- advise: by expected points
    c("zilch-advise-plain", "zilch advise --rules farkle --dice 3 --turn 400", json=True),
    c("zilch-advise-fresh-zilch", "zilch advise --rules zilch", json=True),
    c("zilch-advise-not-on-board",
      "zilch advise --rules zilch --dice 3 --turn 300 --not-on-board", json=True),
    c("zilch-advise-permanent",
      "zilch advise --rules zilch-online --dice 6 --turn 1500 --permanent 1500", json=True),
    c("zilch-advise-roll", "zilch advise --rules farkle --roll 1,1,5,3,4,6", json=True),
    c("zilch-advise-roll-zilch",
      "zilch advise --rules farkle --dice 3 --turn 300 --roll 2,3,4", json=True),
    c("zilch-advise-roll-forced", "zilch advise --rules zilch --roll 1,1,1,5,2,3", json=True),
    c("zilch-advise-matched",
      "zilch advise --rules zonk-detroit --roll 1,1,2,2,3,3 --matched", json=True),
    c("zilch-advise-take-over", "zilch advise --rules zonk-chicago --take-over 3,400", json=True),
    c("zilch-advise-zilches",
      "zilch advise --rules penalty.toml --dice 3 --turn 300 --zilches 2", json=True),
    c("zilch-advise-zilches-roll",
      "zilch advise --rules penalty.toml --roll 1,2,3,3,4,6 --zilches 1", json=True),
    c("zilch-advise-beat",
      "zilch advise --rules zilch-overtaking --dice 3 --turn 500 --beat 1000", json=True),
    c("zilch-advise-beat-roll",
      "zilch advise --rules zilch-overtaking --roll 1,1,5,2,3,4 --beat 400", json=True),
    c("zilch-advise-frozen",
      "zilch advise --rules zilch-pyramiding --dice 3 --turn 600 --frozen 1,5,5", json=True),
    c("zilch-advise-frozen-roll",
      "zilch advise --rules zilch-pyramiding --dice 4 --turn 650 --frozen 1,5 --roll 5,5,2,3",
      json=True),
    # --- advise: by the probability of winning
    c("zilch-advise-last-turn",
      "zilch advise --rules farkle --dice 3 --turn 600 --score 9000 --opponents 10200",
      json=True),
    c("zilch-advise-last-turn-flag",
      "zilch advise --rules zilch-online --dice 3 --turn 300 --score 4000 "
      "--opponents 5200,3000 --last-turn", json=True),
    c("zilch-advise-final-round",
      "zilch advise --rules zilch-online --dice 3 --turn 300 --score 4000 "
      "--opponents 3000,5200 --final-round", json=True),
    c("zilch-advise-final-round-roll",
      "zilch advise --rules zilch-online --roll 1,1,5,2,3,4 --score 4000 "
      "--opponents 3000,5200 --final-round", json=True),
    c("zilch-advise-game-missing",  # exit 3: the table to build first
      "zilch advise --rules farkle --target 1500 --dice 3 --turn 300 --score 200 "
      "--opponents 500", json=True),
    c("zilch-advise-game-solve",  # (text: solves and says so; --json: reads it)
      "zilch advise --rules farkle --target 1000 --dice 2 --turn 350 --score 200 "
      "--opponents 500 --solve", json=True),
    c("zilch-advise-game-roll",
      "zilch advise --rules farkle --target 1000 --roll 1,5,2,3,4,6 --score 200 "
      "--opponents 500", json=True),
    c("zilch-advise-game-tables-option",
      "zilch advise --rules farkle --target 1000 --dice 1 --turn 250 --score 600 "
      "--opponents 700 --tables {TABLES}", json=True),
    c("zilch-advise-take-over-game",
      "zilch advise --rules zonk-chicago --take-over 3,400 --score 700 --opponents 500 "
      "--target 1000 --solve", json=True),
    c("zilch-advise-beat-game",
      "zilch advise --rules zilch-overtaking --target 1000 --dice 3 --turn 500 --score 500 "
      "--opponents 900 --beat 400 --solve", json=True),
    c("zilch-advise-challenge",
      "zilch advise --rules zilch-challenge --target 1000 --dice 3 --turn 200 --score 300 "
      "--opponents 500 --solve", json=True),
    c("zilch-advise-challenging",
      "zilch advise --rules zilch-challenge --target 1000 --dice 3 --turn 200 --score 300 "
      "--opponents 500 --challenging --challenges below,both", json=True),
    c("zilch-advise-challenge-on-board",
      "zilch advise --rules zilch-challenge --target 1000 --score 0 --opponents 600 "
      "--on-board no,yes --challenges both,above", json=True),
    c("zilch-advise-frozen-game",
      "zilch advise --rules zilch-pyramiding --target 1000 --dice 3 --turn 600 --frozen 1,5,5 "
      "--score 0 --opponents 600 --solve", json=True),
    # --- strategy cards
    *[c(f"zilch-strategy-{r}", f"zilch strategy --rules {r}", json=True)
      for r in ["farkle", "zilch", "zilch-10000", "zilch-5000", "zilch-online",
                "zilch-pyramiding", "zonk-chicago", "zonk-detroit"]],
    c("zilch-strategy-not-on-board", "zilch strategy --rules zilch --not-on-board", json=True),
    c("zilch-strategy-beat", "zilch strategy --rules zilch-overtaking --beat 1000", json=True),
    c("zilch-strategy-penalty", "zilch strategy --rules penalty.toml", json=True),
    # --- endgame
    c("zilch-endgame-deficit", "zilch endgame --rules zilch --deficit 1000", json=True),
    c("zilch-endgame-deficit-state",
      "zilch endgame --rules zilch --deficit 1000 --dice 2 --turn 600", json=True),
    c("zilch-endgame-deficit-target",
      "zilch endgame --rules farkle --deficit 500 --target 1000", json=True),
    c("zilch-endgame-final-round",
      "zilch endgame --rules zilch-online --final-round --scores 5000,2500,4900,4950",
      json=True),
    c("zilch-endgame-challenging",
      "zilch endgame --rules zilch-challenge --deficit 1000 --challenging", json=True),
    c("zilch-endgame-beat",
      "zilch endgame --rules zilch-overtaking --deficit 800 --beat 500", json=True),
    c("zilch-endgame-frozen",
      "zilch endgame --rules zilch-pyramiding --deficit 1000 --dice 3 --turn 600 "
      "--frozen 1,5,5", json=True),
    c("zilch-endgame-table-stdout",  # (csv; with --json: the table as JSON)
      "zilch endgame --rules farkle --table --target 500", json=True),
    c("zilch-endgame-table-csv",
      "zilch endgame --rules farkle --table --target 1000 --format csv --out lastturn.csv",
      files=["lastturn.csv"]),
    c("zilch-endgame-table-json",
      "zilch endgame --rules farkle --table --target 1000 --format json --out lastturn.json",
      files=["lastturn.json"]),
    # --- game
    c("zilch-game-scores", "zilch game --rules farkle --target 1000 --scores 200,500", json=True),
    c("zilch-game-start", "zilch game --rules farkle --target 1000", json=True),
    c("zilch-game-fairness", "zilch game --rules farkle --target 1000 --fairness", json=True),
    c("zilch-game-zilch", "zilch game --rules zilch --target 1000 --scores 500,0", json=True),
    c("zilch-game-online", "zilch game --rules zilch-online --target 600 --scores 0,500",
      json=True),
    c("zilch-game-zonk", "zilch game --rules zonk-chicago --target 1000", json=True),
    c("zilch-game-penalty",  # (--lowest -500: the default -2000 takes half a minute)
      "zilch game --rules penalty.toml --target 500 --lowest -500 --scores 200,300 "
      "--zilches 1 --opp-zilches 2", json=True),
    c("zilch-game-beat",
      "zilch game --rules zilch-overtaking --target 1000 --scores 500,900 --beat 400",
      json=True),
    c("zilch-game-challenge",
      "zilch game --rules zilch-challenge --target 1000 --scores 300,500 "
      "--challenges both,below --on-board yes,yes", json=True),
    c("zilch-game-pyramiding", "zilch game --rules zilch-pyramiding --target 1000", json=True),
    c("zilch-game-policy-points",
      "zilch game --rules farkle --target 1000 --policy points", json=True),
    c("zilch-game-policy-file",
      "zilch game --rules farkle --target 1000 --policy policy.toml --vs points", json=True),
    c("zilch-game-players-3", "zilch game --rules farkle --players 3 --target 500", json=True),
    c("zilch-game-players-3-scores",
      "zilch game --rules farkle --players 3 --target 500 --scores 100,200,300", json=True),
    # --- export (every objective, csv and json, into files)
    *[c(f"zilch-export-{o}-{f}",
        f"zilch export --rules farkle --objective {o}{t} --format {f} --out export-{o}.{f}",
        files=[f"export-{o}.{f}"])
      for o, t in [("score", ""), ("last-turn", " --target 1000"), ("game", " --target 1000"),
                   ("game-policy", " --target 1000")]
      for f in ["csv", "json"]],
    *[c(f"zilch-export-beat-{f}",
        f"zilch export --rules zilch-overtaking --objective beat --max-beat 1000 --format {f} "
        f"--out export-beat.{f}", files=[f"export-beat.{f}"])
      for f in ["csv", "json"]],
    c("zilch-export-game-players-3",
      "zilch export --rules farkle --objective game --players 3 --target 500 --format csv "
      "--out export-game3.csv", files=["export-game3.csv"]),
    c("zilch-export-penalty",
      "zilch export --rules penalty.toml --format csv --out export-penalty.csv",
      files=["export-penalty.csv"]),
    c("zilch-export-pyramiding",
      "zilch export --rules zilch-pyramiding --format csv --out export-pyramiding.csv",
      files=["export-pyramiding.csv"]),
    c("zilch-export-stdout-csv", "zilch export --rules zonk-chicago"),
    c("zilch-export-stdout-json", "zilch export --rules zonk-chicago --format json"),
    c("zilch-export-parquet",  # (the file's bytes are not recorded)
      "zilch export --rules farkle --format parquet --out export-score.parquet"),
    # --- evaluate
    c("zilch-evaluate", "zilch evaluate --rules farkle", json=True),
    c("zilch-evaluate-state", "zilch evaluate --rules farkle --dice 2 --turn 300", json=True),
    c("zilch-evaluate-not-on-board", "zilch evaluate --rules zilch --not-on-board", json=True),
    c("zilch-evaluate-policy", "zilch evaluate --rules farkle --policy policy.toml", json=True),
    c("zilch-evaluate-zilches",
      "zilch evaluate --rules penalty.toml --zilches 2 --policy penalty-policy.toml",
      json=True),
    c("zilch-evaluate-beat", "zilch evaluate --rules zilch-overtaking --beat 1000", json=True),
    c("zilch-evaluate-frozen",
      "zilch evaluate --rules zilch-pyramiding --dice 3 --turn 600 --frozen 1,5,5", json=True),
    # --- simulate
    c("zilch-simulate", "zilch simulate --rules farkle --turns 20000 --seed 7", json=True),
    c("zilch-simulate-files",
      "zilch simulate --rules farkle --turns 2000 --seed 7 --out sim{J}.csv --log sim{J}.jsonl",
      json=True, files=["sim{J}.csv", "sim{J}.jsonl"]),
    c("zilch-simulate-policy",
      "zilch simulate --rules zilch --policy policy.toml --turns 5000 --seed 2", json=True),
    c("zilch-simulate-beat",
      "zilch simulate --rules zilch-overtaking --beat 500 --turns 5000 --seed 1", json=True),
    c("zilch-simulate-long-run",
      "zilch simulate --rules penalty.toml --long-run --turns 20000 --seed 3", json=True),
    c("zilch-simulate-games",
      "zilch simulate --rules farkle --games 200 --target 1000 --seed 5 --out games{J}.csv",
      json=True, files=["games{J}.csv"]),
    c("zilch-simulate-games-vs",
      "zilch simulate --rules farkle --games 200 --target 1000 --seed 5 --vs points",
      json=True),
    c("zilch-simulate-pyramiding",
      "zilch simulate --rules zilch-pyramiding --turns 2000 --seed 4", json=True),
    c("zilch-simulate-pyramiding-log",  # refused today
      "zilch simulate --rules zilch-pyramiding --turns 50 --seed 2 --log pyr{J}.jsonl",
      json=True),
    # --- verify
    c("zilch-verify", "zilch verify --rules farkle --results sim.csv", json=True),
    c("zilch-verify-column", "zilch verify --rules farkle --results sim.csv --column score",
      json=True),
    c("zilch-verify-inconsistent", "zilch verify --rules farkle --results bad-results.txt",
      json=True),
    c("zilch-verify-games", "zilch verify --rules farkle --games games.csv --target 1000",
      json=True),
    c("zilch-verify-rolls", "zilch verify --rules farkle --results rolls.txt --rolls",
      json=True),
    # --- plot (only the exit code and the text; not the pictures' bytes)
    c("zilch-plot-endgame", "zilch plot endgame --rules farkle --out endgame.png",
      pictures=["endgame.png"]),
    c("zilch-plot-distribution",
      "zilch plot distribution --rules farkle --results sim.csv --out distribution.png",
      pictures=["distribution.png"]),
    c("zilch-plot-game", "zilch plot game --rules farkle --target 1000 --out game.png",
      pictures=["game.png"]),
    c("zilch-plot-game-players-3",
      "zilch plot game --rules farkle --players 3 --target 500 --out game3.png",
      pictures=["game3.png"]),
    # --- play (scripted through standard input, seeded), then review its logs
    c("zilch-play-best",
      "zilch play --rules farkle --target 1000 --seed 11 --log play-best.jsonl",
      stdin="best.txt", files=["play-best.jsonl"]),
    c("zilch-play-3-players",
      "zilch play --rules farkle --players 3 --target 1000 --seed 12 --log play-3.jsonl",
      stdin="mixed.txt", files=["play-3.jsonl"]),
    c("zilch-play-people",
      "zilch play --rules zilch --people Ann,Bob --target 1000 --seed 13 "
      "--log play-people.jsonl", stdin="best.txt", files=["play-people.jsonl"]),
    c("zilch-play-dice-from-input",
      "zilch play --rules farkle --people Ann,Bob --dice-from-input --target 500 --seed 1 "
      "--log play-typed.jsonl", stdin="typed-dice.txt", files=["play-typed.jsonl"]),
    c("zilch-play-pyramiding",  # refused today; expected to play after the refactor
      "zilch play --rules zilch-pyramiding --target 1000 --seed 11 --log play-pyr.jsonl",
      stdin="best.txt"),
    c("zilch-play-zonk",  # refused today
      "zilch play --rules zonk-chicago --target 1000 --seed 3 --log play-zonk.jsonl",
      stdin="best.txt"),
    c("zilch-play-penalty",  # refused today
      "zilch play --rules penalty.toml --target 500 --seed 3 --log play-pen.jsonl",
      stdin="best.txt"),
    c("zilch-play-overtaking",  # refused today
      "zilch play --rules zilch-overtaking --target 1000 --seed 3 --log play-over.jsonl",
      stdin="best.txt"),
    c("zilch-play-challenge",  # refused today
      "zilch play --rules zilch-challenge --target 1000 --seed 3 --log play-chal.jsonl",
      stdin="best.txt"),
    c("zilch-review-play", "zilch review play-best.jsonl", json=True),
    c("zilch-review-play-points", "zilch review play-best.jsonl --objective points", json=True),
    c("zilch-review-play-3", "zilch review play-3.jsonl", json=True),
    c("zilch-review-player", "zilch review play-people.jsonl --player Bob", json=True),
    c("zilch-review-typed", "zilch review play-typed.jsonl", json=True),
    c("zilch-review-typed-game-missing",  # exit 3: the farkle game to 500 is not stored
      "zilch review play-typed.jsonl --objective game --target 500", json=True),
    c("zilch-review-simulate", "zilch review sim.jsonl", json=True),
    c("zilch-review-hand", "zilch review hand.jsonl", json=True),
    c("zilch-review-pyramiding", "zilch review pyramiding.jsonl", json=True),  # refused today
    # --- yahtzee
    c("yahtzee-rules", "yahtzee rules", json=True),
    c("yahtzee-advise-keep", "yahtzee advise --dice 1,3,3,5,6 --rolls-left 2", json=True),
    c("yahtzee-advise-keep-1", "yahtzee advise --dice 6,6,6,2,5 --rolls-left 1 "
      "--filled sixes,chance --upper 18", json=True),
    c("yahtzee-advise-box", "yahtzee advise --dice 2,2,2,5,5 --rolls-left 0 --filled ones "
      "--upper 3", json=True),
    c("yahtzee-advise-bonus", "yahtzee advise --dice 4,4,4,4,4 --rolls-left 0 "
      "--filled yahtzee,fours --upper 12 --yahtzee-bonus", json=True),
    c("yahtzee-advise-yatzy-forced",
      "yahtzee advise --rules yatzy-forced --dice 1,1,3,4,5 --rolls-left 2", json=True),
    c("yahtzee-value", "yahtzee value", json=True),
    c("yahtzee-value-state", "yahtzee value --filled ones,fullhouse --upper 3", json=True),
    c("yahtzee-value-yatzy-forced", "yahtzee value --rules yatzy-forced", json=True),
    c("yahtzee-evaluate-yatzy-forced", "yahtzee evaluate --rules yatzy-forced", json=True),
    c("yahtzee-evaluate-yatzy-forced-csv",
      "yahtzee evaluate --rules yatzy-forced --format csv --out yahtzee-evaluate.csv",
      files=["yahtzee-evaluate.csv"]),
    c("yahtzee-evaluate-yatzy-forced-stdout",
      "yahtzee evaluate --rules yatzy-forced --format json"),
    c("yahtzee-evaluate-plot", "yahtzee evaluate --rules yatzy-forced --plot yahtzee.png",
      pictures=["yahtzee.png"]),
    c("yahtzee-evaluate", "yahtzee evaluate", json=True),  # (the longest: about a minute)
    c("yahtzee-simulate", "yahtzee simulate --games 2000 --seed 1", json=True),
    c("yahtzee-simulate-yatzy-forced",
      "yahtzee simulate --rules yatzy-forced --games 2000 --seed 2", json=True),
    c("yahtzee-export-csv", "yahtzee export --format csv --out yahtzee-export.csv",
      files=["yahtzee-export.csv"]),
    c("yahtzee-export-json",
      "yahtzee export --rules yatzy-forced --format json --out yahtzee-export.json",
      files=["yahtzee-export.json"]),
    c("yahtzee-play", "yahtzee play --seed 4 --log yahtzee-play.jsonl", stdin="yahtzee.txt",
      files=["yahtzee-play.jsonl"]),
    c("yahtzee-play-quit",
      "yahtzee play --rules yatzy-forced --seed 5 --log yahtzee-quit.jsonl",
      stdin="yahtzee-quit.txt", files=["yahtzee-quit.jsonl"]),
    c("yahtzee-review", "yahtzee review yahtzee-play.jsonl", json=True),
    c("yahtzee-review-quit", "yahtzee review yahtzee-quit.jsonl", json=True),
    # --- bad input: exit code 2 (one line on stderr; with --json a JSON object)
    c("bad-die-face", "zilch advise --rules farkle --roll 1,7,3", json=True),
    c("bad-preset", "zilch advise --rules no-such-preset", json=True),
    c("bad-rule-file", "zilch strategy --rules missing.toml", json=True),
    c("bad-turn-total", "zilch advise --rules farkle --dice 3 --turn 33", json=True),
    c("bad-dice-count", "zilch advise --rules farkle --dice 9", json=True),
    c("bad-odds-dice", "zilch odds --rules farkle --dice 0", json=True),
    c("bad-scores", "zilch game --rules farkle --target 1000 --scores 5,abc", json=True),
    c("bad-option", "zilch advise --no-such-option", json=True),
    c("bad-take-over", "zilch advise --rules farkle --take-over 3,400", json=True),
    c("bad-frozen-state",
      "zilch advise --rules zilch-pyramiding --dice 5 --turn 350 --frozen 1 --roll 5,5,2,3,4",
      json=True),
    c("bad-endgame-format", "zilch endgame --rules farkle --deficit 100 --format json",
      json=True),
    c("bad-simulate-games-turns", "zilch simulate --games 10 --turns 10", json=True),
    c("bad-export-target", "zilch export --rules farkle --objective score --target 1000"),
    c("bad-review-missing", "zilch review missing.jsonl", json=True),
    c("bad-verify-missing", "zilch verify --rules farkle --results missing.csv", json=True),
    c("bad-play-players", "zilch play --players 7 --seed 1 --log bad-play.jsonl"),
    c("bad-tables-remove", "zilch tables --remove no-such-table", json=True),
    c("bad-yahtzee-dice", "yahtzee advise --dice 1,2,3", json=True),
    c("bad-yahtzee-box", "yahtzee advise --dice 1,2,3,4,5 --filled no-such-box", json=True),
    c("bad-yahtzee-rules", "yahtzee value --rules no-such-rules", json=True),
    c("bad-yahtzee-games", "yahtzee simulate --games 0", json=True),
    # --- last: what the run stored
    c("zilch-tables", "zilch tables", json=True),
    c("zilch-tables-option", "zilch tables --tables {TABLES} --remove-partial", json=True),
]  # fmt: skip

# ---------------------------------------------------------------------------------------
# Normalisation: what varies from run to run.

DROP = [
    re.compile(r".*: \d+ of \d+ steps after \d+ s \.\.\.$"),  # progress off a terminal
    re.compile(r".*: (done in|stopped after) \d+(\.\d+)? s$"),  # (printed only when slow)
]
TIMING = re.compile(r"\b(in|after|took) \d+(\.\d+)? ?(s|ms|seconds)\b")


def normalise(text: str, paths: list[tuple[str, str]]) -> str:
    for path, placeholder in paths:
        text = text.replace(path, placeholder)
    text = text.replace("\r", "\n")  # (a progress bar redrawing its line)
    lines = [line for line in text.split("\n") if not any(d.fullmatch(line) for d in DROP)]
    return TIMING.sub(r"\1 <T>", "\n".join(lines))


# ---------------------------------------------------------------------------------------
# record


def file_summary(path: Path) -> str:
    data = path.read_bytes()
    head = data[:2000].decode("utf-8", "replace").split("\n")[:5]
    newlines = data.count(b"\n")
    lines = [
        f"{path.name}: {len(data)} bytes, {newlines} lines, "
        f"sha256 {hashlib.sha256(data).hexdigest()}"
    ]
    lines += [f"  | {line[:200]}" for line in head]
    return "\n".join(lines)


@dataclass
class Sandbox:
    """The temporary folder of one run: everything the commands write goes into it."""

    root: Path
    work: Path  # the commands' working folder: the files they read and write
    tables: Path
    env: dict[str, str]
    paths: list[tuple[str, str]]  # (path, placeholder), longest first


def sandbox(bindir: Path) -> Sandbox:
    root = Path(tempfile.mkdtemp(prefix="golden-"))
    folders = {k: root / k for k in ("tables", "work", "home", "tmp", "cache")}
    for folder in folders.values():
        folder.mkdir()
    work, tables = folders["work"], folders["tables"]
    for name, text in FIXTURES.items():
        (work / name).write_text(text)
    env = {
        "PATH": f"{bindir}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        "HOME": str(folders["home"]),
        "TMPDIR": str(folders["tmp"]),  # (Dask's scratch space too)
        "DICESOLVER_TABLES": str(tables),
        "XDG_CACHE_HOME": str(folders["cache"]),
        "XDG_CONFIG_HOME": str(folders["home"] / ".config"),
        "MPLCONFIGDIR": str(folders["cache"] / "matplotlib"),
        "NUMBA_CACHE_DIR": str(folders["cache"] / "numba"),  # (not beside the installed code)
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "COLUMNS": "100",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    paths = []  # each also as the OS resolves it
    for path, placeholder in [(tables, "<TABLES>"), (work, "<WORK>"), (root, "<TMP>"),
                              (bindir, "<BIN>")]:  # fmt: skip
        for p in dict.fromkeys([str(path), os.path.realpath(path)]):
            paths.append((p, placeholder))
    paths.sort(key=lambda pair: -len(pair[0]))
    return Sandbox(root, work, tables, env, paths)


def run_one(cmd: Cmd, as_json: bool, bindir: Path, box: Sandbox) -> tuple[str, object, float]:
    """Run one command; its record's text, its exit code and its time."""
    j = "-json" if as_json else ""
    argv = [a.replace("{J}", j).replace("{TABLES}", str(box.tables)) for a in shlex.split(cmd.line)]
    argv[0] = str(bindir / argv[0])
    if as_json:
        argv.append("--json")
    work = box.work
    files = [f.replace("{J}", j) for f in cmd.files]
    for f in [*files, *cmd.pictures]:  # (a file left by a run before would be refused)
        (work / f).unlink(missing_ok=True)
    stdin = open(work / cmd.stdin, "rb") if cmd.stdin else subprocess.DEVNULL
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=work, env=box.env, stdin=stdin, capture_output=True,
                           timeout=900)  # fmt: skip
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or b"", e.stderr or b""
    finally:
        if cmd.stdin:
            stdin.close()
    took = time.monotonic() - t0
    shown = "$ " + shlex.join([Path(argv[0]).name, *argv[1:]])
    if cmd.stdin:
        shown += f" < {cmd.stdin}"
    parts = [
        normalise(shown, box.paths),
        f"exit code: {code}",
        "--- stdout",
        normalise(out.decode("utf-8", "replace"), box.paths),
        "--- stderr",
        normalise(err.decode("utf-8", "replace"), box.paths),
    ]
    if files or cmd.pictures:
        parts.append("--- files")
        for f in files:
            parts.append(file_summary(work / f) if (work / f).exists() else f"{f}: not written")
        for f in cmd.pictures:
            pic = work / f
            ok = pic.exists() and pic.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            parts.append(f"{f}: {'a PNG written' if ok else 'no PNG written'}")
    return "\n".join(parts) + "\n", code, took


def tree_state(root: Path) -> set[tuple[str, int, int]]:
    """Every file under root with its size and modification time (to see nothing wrote)."""
    state = set()
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            state.add((p, st.st_size, st.st_mtime_ns))
    return state


def record(bindir: Path, outdir: Path, keep: bool = False) -> int:
    runs = [(cmd, as_json) for cmd in COMMANDS for as_json in [False, True][: 1 + cmd.json]]
    names = [cmd.name + ("--json" if as_json else "") for cmd, as_json in runs]
    assert len(names) == len(set(names)), "command names must be unique"
    bindir = bindir.resolve()
    for prog in ("zilch", "yahtzee"):
        if not (bindir / prog).exists():
            sys.exit(f"golden: no {prog} in {bindir}")
    outdir.mkdir(parents=True, exist_ok=True)
    for old in [*outdir.glob("*.out"), outdir / "index.txt"]:
        old.unlink(missing_ok=True)
    box = sandbox(bindir)
    venv = bindir.parent
    before = tree_state(venv)
    index, timeouts, t_start = [], 0, time.monotonic()
    try:
        for (cmd, as_json), name in zip(runs, names):
            text, code, took = run_one(cmd, as_json, bindir, box)
            (outdir / f"{name}.out").write_text(text)
            index.append(f"{name}\texit {code}\t{text.split(chr(10), 1)[0]}")
            timeouts += code == "timeout"
            if "Traceback (most recent call last)" in text:
                print(f"golden: {name} printed a traceback", file=sys.stderr)
            print(f"[{len(index):3}/{len(runs)}] {took:7.2f} s  exit {code!s:>7}  {name}",
                  file=sys.stderr)  # fmt: skip
    finally:
        (outdir / "index.txt").write_text("\n".join(index) + "\n")
        changed = sorted({p for p, *_ in before ^ tree_state(venv)})
        if changed:
            print(f"golden: WARNING: files under {venv} changed during the run:", file=sys.stderr)
            print("\n".join(f"  {p}" for p in changed[:20]), file=sys.stderr)
        if keep:
            print(f"golden: the temporary folder is kept: {box.root}", file=sys.stderr)
        else:
            shutil.rmtree(box.root, ignore_errors=True)
    total = time.monotonic() - t_start
    print(f"golden: {len(index)} commands recorded in {outdir} in {total:.0f} s", file=sys.stderr)
    return 1 if timeouts else 0


# ---------------------------------------------------------------------------------------
# compare

DIFF_LINES = 60  # lines of a diff shown per command


def order(folder: Path) -> list[str]:
    index = folder / "index.txt"
    if index.exists():
        return [line.split("\t", 1)[0] for line in index.read_text().splitlines() if line]
    return sorted(p.stem for p in folder.glob("*.out"))


def compare(a: Path, b: Path) -> int:
    for folder in (a, b):
        if not folder.is_dir():
            sys.exit(f"golden: no folder {folder}")
    names_a, names_b = order(a), order(b)
    names = names_a + [n for n in names_b if n not in set(names_a)]
    differ = 0
    for name in names:
        fa, fb = a / f"{name}.out", b / f"{name}.out"
        if not fa.exists() or not fb.exists():
            differ += 1
            print(f"=== {name}: only in {a if fa.exists() else b}")
            continue
        ta, tb = fa.read_text(), fb.read_text()
        if ta == tb:
            continue
        differ += 1
        diff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(), str(fa), str(fb),
                                         lineterm=""))  # fmt: skip
        print(f"=== {name}: differs")
        print("\n".join(diff[:DIFF_LINES]))
        if len(diff) > DIFF_LINES:
            print(f"... ({len(diff) - DIFF_LINES} more diff lines)")
    print(f"golden: {len(names)} commands, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    usage = (
        "usage: python bench/golden.py record BINDIR OUTDIR [--keep]\n"
        "       python bench/golden.py compare OUTDIR_A OUTDIR_B"
    )
    keep = "--keep" in argv
    args = [a for a in argv if a != "--keep"]
    if len(args) == 3 and args[0] == "record":
        return record(Path(args[1]), Path(args[2]), keep)
    if len(args) == 3 and args[0] == "compare":
        return compare(Path(args[1]), Path(args[2]))
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
