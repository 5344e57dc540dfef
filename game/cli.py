"""Command line: ``ropework [LEVEL] [options]`` (or ``python -m ropework``), plus
``ropework validate FILE...``, ``ropework frame LEVEL`` and ``ropework replay SCRIPT LEVEL --against HASHLOG``."""
from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from pathlib import Path

from ropework.schema import LevelError, printable

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line, exit 2, no usage dump
        print(f"ropework: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


class _Version(argparse.Action):
    """``--version``: the version is looked up when asked for (importlib.metadata), not on every start."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, help="show program's version number and exit"):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ropework import __version__
        print(f"ropework {__version__}")
        parser.exit()


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,5})[xX](\d{1,5})", text)
    if not m or not (1 <= int(m.group(1)) <= 8192 and 1 <= int(m.group(2)) <= 8192):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT within 1..8192, e.g. 1280x720, found {text!r}")
    return int(m.group(1)), int(m.group(2))


def _frames(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"expected a whole number of frames in 1..100000, found {text!r}")
    return int(text)


def _fps(text: str) -> int:
    from ropework.record import GIF_RATES
    if not text.isdigit() or int(text) not in GIF_RATES:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(map(str, GIF_RATES))} "
                                         f"(GIF stores whole hundredths of a second), found {text!r}")
    return int(text)


def _every(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"expected a whole number of steps in 1..100000, found {text!r}")
    return int(text)


def _seed(text: str) -> int:
    if not text.isdigit() or int(text) >= 2**32:
        raise argparse.ArgumentTypeError(f"expected a seed in 0..4294967295, found {text!r}")
    return int(text)


def prog() -> str:
    """How the user ran us, for help and hints: ``ropework`` or ``python -m ropework``."""
    return "ropework" if Path(sys.argv[0] or "").name == "ropework" else "python -m ropework"


def parser() -> argparse.ArgumentParser:
    from ropework import keys
    p = _Parser(prog=prog(),
                description=f"ropework: interactive Verlet physics toys. Check level files: {prog()} validate "
                            f"FILE... (exit 0 if all load, else 2); print the systems a level runs: {prog()} "
                            "frame LEVEL.",
                epilog=keys.epilog())
    p.add_argument("level", nargs="?", help="level file, or a shipped level's name or number from --list "
                   "(default: rope)")
    p.add_argument("--version", action=_Version)
    p.add_argument("--list", action="store_true", help="list the shipped levels and exit")
    p.add_argument("--record", metavar="OUT", help="render off-screen to OUT.png (last frame), OUT.gif (every frame, "
                   "50 fps) or OUT.mp4 (every frame, 60 fps; needs the optional video extra)")
    p.add_argument("--frames", type=_frames, default=120, help="frames to record, one fixed 1/60 s step each (default 120)")
    p.add_argument("--fps", type=_fps, default=None,
                   help="GIF frames per second, one of 50, 25, 20, 10, 5: frames are taken every 60/FPS steps and "
                        "the GIF plays in real time (default: every step at 50 fps, 5/6 of real time)")
    p.add_argument("--input", metavar="SCRIPT", help="scripted pointer input for --record (format: docs/input-scripts.md)")
    p.add_argument("--size", type=_size, default=None, help="window or recording size WxH (default 1280x720, "
                   "or a --from snapshot's)")
    p.add_argument("--from", dest="start", metavar="SNAPSHOT", help="start the window or the recording from a "
                   "snapshot (K in the window saves one; format: docs/snapshots.md); LEVEL defaults to its level")
    p.add_argument("--hash-every", type=_every, default=None, metavar="N",
                   help="with --record: write the state's hash every N steps to OUT.hashes (or --hash-log), for "
                        f"{prog()} replay")
    p.add_argument("--hash-log", metavar="FILE", help="where --hash-every writes (default: OUT.hashes beside the recording)")
    p.add_argument("--seed", type=_seed, default=None, help="random seed (default: the level's)")
    p.add_argument("--reduced-motion", action="store_true", default=None, help="turn off decorative motion")
    p.add_argument("--no-plugins", action="store_true", help="don't load installed plugins (also ROPEWORK_NO_PLUGINS=1)")
    p.add_argument("--plugin", action="append", default=[], metavar="NAME",
                   help="load the installed plugin NAME even when autoloading is off (repeatable)")
    return p


def _list() -> int:
    """Each shipped level, numbered as the window's number keys open them."""
    from ropework import level
    for i, path in enumerate(level.shipped(), 1):
        try:
            lv = level.load(path)
            print(f"{i:2d}  {path.name:20s} {lv.title}: {lv.description}")
        except LevelError as e:
            print(f"{i:2d}  {path.name:20s} (invalid: {e})")
    return 0


def frame(argv) -> int:
    """``ropework frame LEVEL``: the systems a scene of LEVEL runs, in run order, and who brings each."""
    from ropework import level
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(f"usage: {prog()} frame LEVEL  (prints the systems the level's scene runs, in order)",
              file=sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else EXIT_BAD_INPUT
    print(level.frame_table(level.load(level.resolve(argv[0]))))
    return 0


def validate(argv) -> int:
    """``python -m ropework validate FILE...``: ``FILE: OK`` or the one-line error for each; 0 if all load, else 2."""
    from ropework import level
    if not argv:
        print(f"ropework: error: validate needs at least one level file: {prog()} validate FILE...",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if argv[0] in ("-h", "--help"):
        print(f"usage: {prog()} validate FILE...\n"
              "Loads each level file as the game would; prints 'FILE: OK' or the error, one line each,\n"
              "and 'FILE: warning: ...' for a level estimated to run far from real time here\n"
              "(from what its keys multiply: points, links, passes, substeps, bends, colliders, ...).\n"
              "A level estimated to step slower than 250 ms, or to start with over 2 s of work, is an error.\n"
              "Exit status 0 if every file loads (warnings too), else 2.")
        return 0
    from ropework import cost
    bad = 0
    for name in argv:
        if not name:
            print("(empty name): expected a level file name, found an empty one")
            bad += 1
            continue
        try:
            lv = level.load(level.resolve(name))
            print(f"{printable(name)}: OK")
            slow = cost.warning(lv)
            if slow:
                print(f"{printable(name)}: {slow}")
        except LevelError as e:
            print(e)
            bad += 1
    return EXIT_BAD_INPUT if bad else 0


def replay(argv) -> int:
    """``ropework replay SCRIPT LEVEL --against HASHLOG``: replay and name where the state first differs."""
    p = _Parser(prog=f"{prog()} replay",
                description="Replay an input script on a level as a hash log's run was made (its size, seed and "
                            "motion) and compare the state at every logged step. Exit 0: the same state at every "
                            "one; 1: it differs, and the first step, component and field that differ are named; "
                            "2: bad input.")
    p.add_argument("script", metavar="SCRIPT", help="the input script the run was recorded with ('-' for none)")
    p.add_argument("level", metavar="LEVEL", help="the level file, or a shipped level's name or number")
    p.add_argument("--against", required=True, metavar="HASHLOG", help="a hash log written by --hash-every")
    args = p.parse_args(argv)
    from ropework import hashlog, level
    code, line = hashlog.replay(None if args.script == "-" else args.script, level.resolve(args.level), args.against)
    print(line)
    return code


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("ARCADE_HEADLESS"))


def _printable_streams() -> None:
    """A file name that is not valid in the terminal's encoding prints with U+FFFD or '?', never raising."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):   # not a text stream we can reconfigure (a test's capture)
            pass


# pyglet's loaders of FFmpeg and of GdkPixbuf, which `main` keeps from probing for their libraries
PYGLET_UNUSED = ("pyglet.media.codecs.ffmpeg_lib", "pyglet.image.codecs.gdkpixbuf2")
_paused: list[bool] = []   # [True] while `main` holds Python's cyclic garbage collector off for the start-up


def _pause_collector() -> None:
    """Hold the cyclic garbage collector off while the command starts (`_resume_collector` ends it).

    Start-up makes ≈ 150,000 objects that live as long as the process (modules, classes, numba
    dispatchers, GL objects) and leaves few cycles (≈ 3,000 objects warm); the collector's passes
    over them, triggered by the allocations, were ≈ 0.15 CPU s of a warm start (9 %)."""
    if gc.isenabled():
        gc.disable()
        _paused.append(True)


def _resume_collector() -> None:
    """Start-up is done (the scene is about to run, or kernels to compile): move what it made into
    the permanent generation (``gc.freeze()``: later collections, while the scene plays, do not walk
    it again) and turn the collector back on. A compile runs with the collector on: numba leaves
    ≈ 80,000 objects of garbage, and one collection of them all after it cost more (≈ 0.25 CPU s
    for a level of one kernel) than the collections during it."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()


def main(argv=None) -> int:
    _printable_streams()
    # The toys make no sound: pyglet's silent driver, unless the user chose one. Loading the
    # OpenAL and PulseAudio drivers was ~0.13 s of every start. Only ropework's own command
    # sets it: a game that imports ropework as a library keeps its audio.
    os.environ.setdefault("PYGLET_AUDIO", "silent")
    # Nor do they play media files or load images through pyglet, yet importing arcade has
    # pyglet look for FFmpeg's libraries (`ldconfig -p` for each, and where one is missing a
    # gcc and an ld run to search further: ≈ 0.1 CPU s and 0.15-0.5 s of wall clock every
    # start) and load GTK 2's GdkPixbuf as its image decoder (≈ 0.03 s; arcade and ropework
    # read images with Pillow). Marking those loaders absent is Python's own "no such
    # module", which pyglet's probes take as "not here" (MP4 recording uses imageio-ffmpeg,
    # not pyglet; pyglet still decodes with Pillow). The command's own process only.
    for name in PYGLET_UNUSED:
        sys.modules.setdefault(name, None)
    _pause_collector()
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except LevelError as e:
        print(f"ropework: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:   # `ropework --list | head`: the reader left; stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 0
    finally:
        if _paused:                 # a command that ended before its scene ran (--list, an error)
            _paused.clear()
            gc.enable()


def _os_line(e: OSError) -> str:
    name = f"{printable(e.filename)}: " if e.filename is not None else ""
    return f"{name}{e.strerror or type(e).__name__}"


def _gl_cache() -> None:
    """Mesa keeps compiled shaders in the user's cache folder and prints a line on every run
    where it cannot create one (a container, a read-only home): give it a temporary one then."""
    if "MESA_SHADER_CACHE_DIR" in os.environ or "MESA_SHADER_CACHE_DISABLE" in os.environ:
        return
    import tempfile
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    probe = home
    while probe and not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not (probe and os.access(probe, os.W_OK)):
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        os.environ["MESA_SHADER_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), f"ropework-gl-{uid}")


def _import_render() -> None:
    import ropework.render  # noqa: F401


def _main(argv: list[str]) -> int:
    _gl_cache()
    from ropework.systems.services import profile
    try:
        profile.forced()                      # a bad ROPEWORK_GL_PROFILE is refused before anything opens
    except ValueError as e:
        print(f"ropework: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if argv[:1] == ["validate"]:
        return validate(argv[1:])
    if argv[:1] == ["frame"]:
        return frame(argv[1:])
    if argv[:1] == ["replay"]:
        return replay(argv[1:])
    args = parser().parse_args(argv)
    for flag, value in (("LEVEL", args.level), ("--record", args.record), ("--input", args.input),
                        ("--hash-log", args.hash_log)):
        if value == "":
            print(f"ropework: error: {flag}: expected a file name, found an empty one", file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.record:
        os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade (levels import ropework.systems)
    from ropework import plugins
    if args.no_plugins:
        os.environ[plugins.ENV_OFF] = "1"
    for name in args.plugin:
        if not plugins.load_one(name):
            return EXIT_BAD_INPUT
    if args.list:
        return _list()
    from ropework import level as level_mod
    path = level_mod.resolve(args.level) if args.level is not None else level_mod.DEFAULT_LEVEL
    if args.start is not None:
        from ropework import snapshot
        header, _ = snapshot.read(args.start)           # a bad snapshot is refused before anything opens
        if args.level is None:
            path = Path(str(header["level"].get("path", "")))
        snapshot.check_level(header, args.start, level_mod.load(path))
        if args.size is None:
            try:
                args.size = (int(header["scene"]["width"]), int(header["scene"]["height"]))
            except (KeyError, TypeError, ValueError):
                print(f"ropework: {args.start}: corrupt: the header's scene has no width and height", file=sys.stderr)
                return EXIT_BAD_INPUT
    if args.size is None:
        args.size = (1280, 720)
    if (args.hash_every or args.hash_log) and not args.record:
        print("ropework: error: --hash-every and --hash-log need --record (they log a headless run)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.hash_log and not args.hash_every:
        print("ropework: error: --hash-log needs --hash-every N", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.input and not args.record:
        print("ropework: error: --input needs --record (scripted input drives recordings)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.record:
        from ropework.record import MissingExtra, OutputError, check_format, check_target, hash_log_for
        try:
            check_format(args.record)
            check_target(args.record)            # before any work: a bad target fails in a second, not after the run
            if args.hash_every:
                check_target(args.hash_log or hash_log_for(args.record))     # the log, named as itself
        except (ValueError, MissingExtra, OutputError) as e:
            print(f"ropework: error: {e}", file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.fps is not None and not (args.record or "").lower().endswith(".gif"):
        print("ropework: error: --fps is for --record OUT.gif (MP4 has every step at 60 fps)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.record:
            from ropework import script
            from ropework.compile import compile_notice, start_compile_child, warm
            from ropework.record import record
            lv = level_mod.load(path, args.size)
            if args.input:
                script.parse(args.input)          # a bad script is refused before anything compiles
            notice = compile_notice(lv)
            if notice:
                print(notice, file=sys.stderr, flush=True)
                _resume_collector()
                # a child compiles part of the kernels on the other core; the first frame's imports meanwhile
                warm(lv, start_compile_child(lv), meanwhile=_import_render)
            _import_render()          # arcade and pyglet: what record() imports first (still paused, when warm)
            _resume_collector()
            out = record(path, args.record, args.frames, size=args.size, seed=args.seed,
                         input_script=args.input, reduced_motion=args.reduced_motion, fps=args.fps,
                         start=args.start, hash_every=args.hash_every, hash_log=args.hash_log)
            print(f"wrote {printable(out)} ({args.frames} step{'s' if args.frames != 1 else ''})")
            gc.freeze()   # as after the window below: the exit's last collection would walk every object again
            return 0
        lv = level_mod.load(path, args.size)      # validate before opening anything
        if not _has_display():
            print(f"ropework: no display to open a window on; record instead: "
                  f"{prog()} {args.level or 'rope'} --record out.gif --frames 120", file=sys.stderr)
            return EXIT_BAD_INPUT
        from ropework.compile import compile_notice, start_compile_child, warm
        from ropework.scene import Scene
        from ropework.window import play
        notice = compile_notice(lv)
        child = None
        if notice:
            print(notice, file=sys.stderr, flush=True)
            child = start_compile_child(lv)     # before the window: a fork copies no thread of a GL driver

        def build() -> Scene:
            if notice:
                _resume_collector()
                warm(lv, child)          # the window says so meanwhile
            if args.start is not None:
                scene = Scene.from_snapshot(args.start, path)
            else:
                scene = Scene(lv, args.size, args.seed, args.reduced_motion)
            _resume_collector()
            return scene
        try:
            play(build, args.size, lv.title, args.reduced_motion, notice, args.start)
        finally:
            if child is not None:
                child.stop()             # reaped (killed, if the window never got as far as building)
        # The process ends now. Its last garbage collection walked every numba dispatcher and GL
        # object once more: 0.6–2 s after the window had gone (1.2 s → 0.09 s for moeru). Frozen
        # objects are left to the exit, which frees the memory anyway; atexit handlers still run.
        gc.freeze()
        return 0
    except LevelError as e:
        print(f"ropework: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:                         # writing the output: OutputError's line, or any other I/O failure
        from ropework.record import OutputError
        print(f"ropework: error: {e if isinstance(e, OutputError) else _os_line(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
