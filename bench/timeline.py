"""Time as data, what it costs: snapshots of a 100,000-point scene, the rewind ring's share of a
step, and interpolated drawing's share of a frame.

    .venv/bin/python -m bench.timeline                                  # prints the tables
    .venv/bin/python -m bench.timeline --write docs/performance.md      # and replaces its section there

1. Snapshots: `Scene.snapshot` (save to a file in a temporary folder), `Scene.restore` into the
   scene that saved it (read, check, write in place) and `Scene.from_snapshot` (a new scene: the
   level parsed and built, then written in) of bench/levels.py's 100,000-point rope scene, and the
   in-memory capture and put-back the rewind ring and the studio's undo use; medians of `--reps`.
2. The rewind ring: CPU seconds a step with the ring kept (`Scene.step(each=ring.after_step)`) and
   without, on every shipped level and the 100,000-point scene, the two interleaved round after
   round (medians over rounds: a busy machine's noise falls on both); and the ring's bytes and reach.
3. Interpolation: every shipped level at 1280×720, headless, frames of a step and a draw with
   alpha 0.5 (interpolated) and 1 (the step as it is), interleaved; the lerp itself (what
   interpolation adds: the drawing is the same work) timed alone, as a share of the frame.
Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- timeline:begin -->", "<!-- timeline:end -->"   # the doc's generated section
SIZE = (1280, 720)


def _median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def snapshots(tmp: Path, reps: int) -> list[str]:
    from bench import levels as gen
    from ropework import snapshot
    from ropework.scene import Scene
    path = gen.write(tmp / "rope100k.toml", gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS))
    scene = Scene.load(path, size=SIZE)
    scene.step(5)
    snap = tmp / "moment.snap"
    save = _median_ms(lambda: scene.snapshot(snap), reps)
    restore = _median_ms(lambda: scene.restore(snap), reps)
    fresh = _median_ms(lambda: Scene.from_snapshot(snap).close(), max(3, reps // 3))
    st = snapshot.capture(scene)
    capture = _median_ms(lambda: snapshot.capture(scene), reps)
    put = _median_ms(lambda: snapshot.put(scene, st), reps)
    rows = [f"{scene.point_count:,}-point rope scene (bench/levels.py), file {snap.stat().st_size / 2**20:.1f} MiB, "
            f"state {st.nbytes / 2**20:.1f} MiB; median of {reps}.", "",
            "| snapshot | ms, median | target |", "|---|---:|---:|",
            f"| `Scene.snapshot` (save to a file) | {save:.1f} | ≤ 20 |",
            f"| `Scene.restore` into the running scene (L: read, check, write in place) | {restore:.1f} | ≤ 20 |",
            f"| `Scene.from_snapshot` (`--from`: parse the level, build it, write in) | {fresh:.1f} | |",
            f"| capture in memory (rewind ring, studio undo) | {capture:.1f} | |",
            f"| put back in memory (a rewind's scrub) | {put:.1f} | |"]
    scene.close()
    return rows


def _cpu_per_step(scene, n: int, each=None) -> float:
    c0 = time.process_time()
    scene.step(n, each=each)
    return (time.process_time() - c0) / n


def ring(tmp: Path, rounds: int, steps: int) -> list[str]:
    from bench import levels as gen
    from ropework import level
    from ropework.rewind import Ring
    from ropework.scene import Scene
    big = gen.write(tmp / "rope100k.toml", gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS))
    rows = [f"CPU per step with the ring kept and without, interleaved; median of {rounds} rounds of {steps} "
            "steps each way. The ring holds a state every 30 steps or more: more where steps are cheap "
            "(it aims at 2 % of step time), so a round spans several states only for the larger scenes; "
            "a full ring holds its states × the bytes of one. *ring / step* is the difference of the two "
            "medians (noisy where a step is microseconds); *capture / (interval × step)* is the ring's own "
            "cost, its measured capture time over the stepping between two captures.", "",
            "| scene | points | step without, ms | with the ring, ms | ring / step | capture / (interval × step) | "
            "steps between states | ring holds |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    cases = [(p.stem, p) for p in level.shipped()] + [("100,000-point ropes", big)]
    for name, path in cases:
        plain, kept = Scene.load(path, size=SIZE, seed=1), Scene.load(path, size=SIZE, seed=1)
        r = Ring()
        plain.step(3)
        kept.step(3, each=r.after_step)
        a, b = [], []
        for _ in range(rounds + 1):        # round 0 measures the step for the ring, as the window's rates do
            a.append(_cpu_per_step(plain, steps))
            r.step_cost = statistics.median(a)
            b.append(_cpu_per_step(kept, steps, r.after_step))
        a, b = a[1:], b[1:]
        ma, mb = statistics.median(a), statistics.median(b)
        rows.append(f"| {name} | {plain.point_count:,} | {1000 * ma:.3f} | {1000 * mb:.3f} | "
                    f"{100 * (mb - ma) / ma:+.1f} % | {100 * r.capture_cost / (r.every * ma):.1f} % | {r.every} | "
                    f"{r.seconds:.1f} s, "
                    f"{r.limit} × {r.state_bytes / 2**20:.2f} MiB |")
        plain.close()
        kept.close()
    return rows


def interpolation(rounds: int, frames: int) -> list[str]:
    from bench.frames import driver
    from ropework import level
    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene
    ctx = headless_window(*SIZE).ctx
    rows = ["Headless 1280×720 frames (a step and a draw, GL finished) at alpha 0.5 and at 1, interleaved, "
            f"{rounds} rounds of {frames} frames each way; the lerp alone (the only work interpolation adds) "
            "timed around the same frames.", "",
            "| level | frame at alpha 1, ms | at alpha 0.5, ms | lerp alone, ms | lerp / frame |",
            "|---|---:|---:|---:|---:|"]
    for path in level.shipped():
        scene = Scene.load(path, size=SIZE, seed=1)
        off = Offscreen(ctx, SIZE)
        drive = driver(scene, path)
        f = 0
        for _ in range(20):
            drive(f)
            scene.step(1)
            off.render(scene, 0.5)
            ctx.finish()
            f += 1
        by = {1.0: [], 0.5: []}
        lerp = []
        for _ in range(rounds):
            for alpha in (1.0, 0.5):
                t = []
                for _ in range(frames):
                    drive(f)
                    f += 1
                    t0 = time.perf_counter()
                    scene.step(1)
                    off.render(scene, alpha)
                    ctx.finish()
                    t.append(time.perf_counter() - t0)
                    if alpha == 0.5:
                        with scene.active():
                            l0 = time.perf_counter()
                            swapped = scene._lerp(0.5)
                            for comp, name, arr in swapped:
                                setattr(comp, name, arr)
                            lerp.append(time.perf_counter() - l0)
                by[alpha].append(statistics.median(t))
        m1, m5, ml = (1000 * statistics.median(by[1.0]), 1000 * statistics.median(by[0.5]),
                      1000 * statistics.median(lerp))
        rows.append(f"| {path.stem} | {m1:.2f} | {m5:.2f} | {ml:.3f} | {100 * ml / m1:.2f} % |")
        off.release()
        scene.close()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.timeline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", type=Path, help="replace the timeline section of this file (docs/performance.md)")
    ap.add_argument("--reps", type=int, default=15, help="snapshot saves and restores timed")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=600, help="steps a round, each way (the ring)")
    ap.add_argument("--frames", type=int, default=12, help="frames a round, each way (interpolation)")
    args = ap.parse_args(argv)
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    from bench.frames import machine
    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        snap = snapshots(Path(d), args.reps)
        rng = ring(Path(d), args.rounds, args.steps)
    interp = interpolation(args.rounds, args.frames)
    head = [f"Machine: {machine()}.  ",
            f"Run: `python -m bench.timeline` on {time.strftime('%Y-%m-%d')}, {time.perf_counter() - t0:.0f} s; "
            f"1-minute load average {load0:.2f} before it started, {os.getloadavg()[0]:.2f} at the end.", ""]
    table = "\n".join(head + ["**Snapshots.** " + snap[0], *snap[1:], "", "**The rewind ring.** " + rng[0], *rng[1:],
                              "", "**Interpolated drawing.** " + interp[0], *interp[1:]])
    print(table)
    if args.write:
        text = args.write.read_text()
        block = f"{BEGIN}\n{table}\n{END}"
        if BEGIN in text:
            text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
        else:
            text = text.rstrip() + "\n\n## Snapshots, rewind and smooth frames\n\n" + block + "\n"
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
