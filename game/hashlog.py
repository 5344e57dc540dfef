"""Hash logs: a run's state digests every N steps, and the replay that finds where another run
parts from it (``ropework replay SCRIPT LEVEL --against HASHLOG``).

A hash log is JSON Lines (docs/snapshots.md): a header line naming the level file (with its
SHA-256), size, seed, the input script and N, then one line a logged step with the combined
hash and each state field's digest (`snapshot.digests`), so a replay names not only the first
step that differs but the first component and field in it.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ropework import snapshot
from ropework.snapshot import SnapshotError

FORMAT = "ropework-hashlog"
VERSION = 1
MAX_BYTES = 256 << 20     # a hash log of at most 256 MiB is read (a 100,000-step log of 40 fields is ~120 MB)
MAX_EVERY = 100_000       # --hash-every at most this many steps


class HashLog:
    """Writes a run's digests every ``every`` steps to ``path`` as it goes."""

    def __init__(self, path, scene, every: int, script=None, frames: int | None = None, start=None):
        if not 1 <= every <= MAX_EVERY:
            raise ValueError(f"--hash-every: expected 1..{MAX_EVERY}, found {every}")
        self.path, self.every = Path(path), every
        self._f = open(self.path, "w", encoding="utf-8")
        lv = scene.level
        head = {"format": FORMAT, "version": VERSION, "level": lv.path.name,
                "sha256": snapshot.file_hash(lv.path), "size": [scene.width, scene.height],
                "seed": scene.seed, "reduced_motion": scene.reduced_motion, "every": every,
                "script": None if script is None else Path(script).name, "frames": frames,
                "script_sha256": None if script is None else snapshot.file_hash(script),
                "from": None if start is None else {"file": Path(start).name, "sha256": snapshot.file_hash(start)}}
        self._f.write(json.dumps(head) + "\n")

    def after(self, scene, step: int) -> None:
        """Step ``step`` (1-based, counted from the run's start) has run: log it if it is due."""
        if step % self.every == 0:
            d = snapshot.digests(scene)
            self._f.write(json.dumps({"step": step, "hash": snapshot.combined(d), "fields": d}) + "\n")

    def close(self) -> None:
        self._f.close()


def read(path) -> tuple[dict, list[dict]]:
    """(header, step lines) of a hash log, checked; SnapshotError (one line) otherwise."""
    path = Path(path)
    try:
        size = os.stat(path).st_size
        if size > MAX_BYTES:
            raise SnapshotError(path, f"expected a hash log of at most {MAX_BYTES} bytes, found {size}")
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise SnapshotError(path, "no such hash log") from None
    except IsADirectoryError:
        raise SnapshotError(path, "expected a hash log file, found a folder") from None
    except OSError as e:
        raise SnapshotError(path, f"expected a readable hash log, found {e.strerror or type(e).__name__}") from None
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise SnapshotError(path, "expected UTF-8 JSON lines, found an invalid byte") from None

    def parse(i, text):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise SnapshotError(path, f"line {i}: expected a JSON object, found {text[:40]!r}") from None
    if not lines:
        raise SnapshotError(path, "empty: expected a header line and step lines")
    head = parse(1, lines[0])
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise SnapshotError(path, "line 1: not a ropework hash log's header")
    if head.get("version") != VERSION:
        raise SnapshotError(path, f"line 1: expected hash log version {VERSION}, found {head.get('version')!r}")
    every = head.get("every")
    size = head.get("size")
    if not (isinstance(every, int) and 1 <= every <= MAX_EVERY and isinstance(head.get("seed"), int)
            and isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) for v in size)
            and isinstance(head.get("level"), str) and isinstance(head.get("sha256"), str)):
        raise SnapshotError(path, "line 1: expected level, sha256, size, seed and every in the header")
    steps = []
    for i, text in enumerate(lines[1:], 2):
        row = parse(i, text)
        want = every * (i - 1)
        if not (isinstance(row, dict) and row.get("step") == want and isinstance(row.get("hash"), str)
                and isinstance(row.get("fields"), dict)):
            raise SnapshotError(path, f"line {i}: expected step {want} with its hash and fields, found "
                                      f"{str(row)[:40]!r}")
        steps.append(row)
    if not steps:
        raise SnapshotError(path, "expected at least one step line after the header, found none")
    frames = head.get("frames")
    if isinstance(frames, int) and frames >= every and len(steps) != frames // every:
        raise SnapshotError(path, f"expected {frames // every} step lines (a run of {frames} steps, every {every}), "
                                  f"found {len(steps)}: cut short or run on")
    return head, steps


def replay(script_path, level_path, against, start=None) -> tuple[int, str]:
    """Replay ``script_path`` on ``level_path`` as the hash log ``against`` was made (its size,
    seed and motion; from the snapshot ``start`` where the run began at one) and compare at each
    logged step. (exit status, the line to print)."""
    from ropework import level, script
    from ropework.scene import Scene
    head, steps = read(against)
    events = script.parse(script_path) if script_path else script.Script()
    lv_path = Path(level_path)
    if head["level"] != lv_path.name:
        raise SnapshotError(against, f"a hash log of {head['level']!r}, not of {lv_path.name!r}")
    if snapshot.file_hash(lv_path) != head["sha256"]:
        raise SnapshotError(against, f"the level file {lv_path} has changed since the hash log was written")
    mine = None if script_path is None else Path(script_path).name
    if head.get("script") != mine:
        raise SnapshotError(against, f"a hash log of a run with input script {head.get('script') or '-'}, "
                                     f"not {mine or '-'} ('-': none)")
    if script_path and head.get("script_sha256") not in (None, snapshot.file_hash(script_path)):
        raise SnapshotError(script_path, "the input script has changed since the hash log's run: a replay of "
                                         "other input would part from the log for no fault of the engine")
    last = steps[-1]["step"]
    began = head.get("from")
    if began is not None and start is None:
        raise SnapshotError(against, f"a hash log of a run from the snapshot {began.get('file')!r}: "
                                     "replay it with --from that snapshot")
    if start is not None:
        if began is None:
            raise SnapshotError(against, "a hash log of a run from the level's start, not from a snapshot (no --from)")
        if snapshot.file_hash(start) != began.get("sha256"):
            raise SnapshotError(start, f"not the snapshot {began.get('file')!r} the hash log's run began from")
        scene = Scene.from_snapshot(start, lv_path)
    else:
        size = tuple(float(v) for v in head["size"])
        lv = level.load(lv_path, size)
        scene = Scene(lv, size, head["seed"], bool(head.get("reduced_motion", False)))
    try:
        by = {row["step"]: row for row in steps}
        for f in range(last):
            script.apply(scene, events.get(f, ()))
            scene.step(1)
            row = by.get(f + 1)
            if row is None:
                continue
            d = snapshot.digests(scene)
            if snapshot.combined(d) != row["hash"]:
                theirs = row["fields"]
                names = list(d) + [k for k in theirs if k not in d]
                first = next((k for k in names if d.get(k) != theirs.get(k)), None)
                n = sum(1 for k in names if d.get(k) != theirs.get(k))
                where = "nothing (the hash alone differs)" if first is None else _describe(first, d, theirs)
                return 1, (f"diverged at step {f + 1}: first {where}; {n} field{'s' if n != 1 else ''} "
                           f"differ{'s' if n == 1 else ''} there")
        return 0, f"same state at every one of {len(steps)} logged steps (to step {last})"
    finally:
        scene.close()


def _describe(name: str, mine: dict, theirs: dict) -> str:
    """``"entity 2 Points.pos"`` (``frame.rng``) and how it differs."""
    ent, _, rest = name.partition(".")
    what = f"frame.{rest}" if ent == "frame" else f"entity {ent} {rest}"
    if name not in theirs:
        return f"{what} (not in the hash log)"
    if name not in mine:
        return f"{what} (only in the hash log)"
    return what
