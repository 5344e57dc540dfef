"""The command line: --record, --list, --help, bad arguments, no display."""
import json
import os
import subprocess
import sys

from PIL import Image

from tests.conftest import LEVELS, ROOT


def run(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "ropework", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=e)


def test_record_gif_has_n_frames_and_follows_the_script(tmp_path):
    script = tmp_path / "in.txt"
    script.write_text("# grab and swing\n0 move 400 300\n2 down 400 290\n2-12 move 400 290 600 350\n12 up 600 350\n")
    out = tmp_path / "rope.gif"
    r = run(str(LEVELS / "rope.toml"), "--record", str(out), "--frames", "24", "--input", str(script),
            "--size", "800x600")
    assert r.returncode == 0, r.stderr
    im = Image.open(out)
    assert im.n_frames == 24 and im.size == (800, 600)
    im.seek(12)
    a = im.convert("RGB")
    im.seek(0)
    assert list(a.getdata()) != list(im.convert("RGB").getdata())   # the drag changed the picture


def test_record_png(tmp_path):
    out = tmp_path / "rope.png"
    r = run(str(LEVELS / "rope.toml"), "--record", str(out), "--frames", "2", "--size", "320x240")
    assert r.returncode == 0, r.stderr
    assert Image.open(out).size == (320, 240)


def test_list_and_help():
    r = run("--list")
    assert r.returncode == 0 and "rope.toml" in r.stdout and "Verlet rope" in r.stdout
    r = run("--help")
    assert r.returncode == 0 and "--record" in r.stdout


def test_bad_arguments_are_one_line_and_exit_2(tmp_path):
    for args in (["--size", "big"], ["--frames", "-4"], ["--record", str(tmp_path / "x.bmp")], ["--bogus"],
                 ["--fps", "30"], ["--record", str(tmp_path / "x.png"), "--fps", "25"], ["--display-hz", "0"],
                 ["--display-hz", "fast"], ["--display-hz", "1000"]):
        r = run(*args)
        assert r.returncode == 2, args
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, (args, r.stderr)


def test_bad_input_script_is_one_line(tmp_path):
    script = tmp_path / "in.txt"
    script.write_text("0 move 1 2\n5 jump 3 4\n")
    r = run(str(LEVELS / "rope.toml"), "--record", str(tmp_path / "o.gif"), "--frames", "3", "--input", str(script))
    assert r.returncode == 2
    assert r.stderr.strip() == f"ropework: {script}:2: expected an event among move, down, up, leave, found 'jump'"


def test_without_a_display_it_says_how_to_record():
    env = {k: "" for k in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    r = run(str(LEVELS / "rope.toml"), env=env)
    assert r.returncode == 2
    assert "no display" in r.stderr and "--record" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_list_shows_every_shipped_levels_number_title_and_description():
    from ropework import level
    r = run("--list")
    lines = r.stdout.splitlines()
    assert len(lines) == len(level.shipped())
    for i, (path, line) in enumerate(zip(level.shipped(), lines), 1):
        lv = level.load(path)
        assert line.split()[:2] == [str(i), path.name] and f"{lv.title}: {lv.description}" in line


def test_validate_ok_files_exit_0(capsys):
    from ropework import level
    from ropework.cli import main
    paths = [str(p) for p in level.shipped()]
    assert main(["validate", *paths]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{p}: OK" for p in paths]


def test_validate_reports_each_bad_file_in_one_line_and_exits_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[layer]]\nkind = "ropez"\n')
    broken = tmp_path / "broken.toml"
    broken.write_text('title = "x\n')
    good = LEVELS / "rope.toml"
    r = run("validate", str(good), str(bad), str(broken))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    out = r.stdout.splitlines()
    assert out[0] == f"{good}: OK"
    assert out[1].startswith(f"{bad}: layer[0].kind: unknown entity kind 'ropez'") and "ropes" in out[1]
    assert out[2].startswith(f"{broken}:1: TOML syntax error") and len(out) == 3


def test_validate_without_files_says_how_and_exits_2(capsys):
    from ropework.cli import main
    assert main(["validate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "python -m ropework validate FILE" in err


def test_mp4_without_the_video_extra_is_one_clear_line(monkeypatch, tmp_path, capsys):
    from ropework.cli import main
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)     # as if not installed
    assert main([str(LEVELS / "rope.toml"), "--record", str(tmp_path / "x.mp4"), "--frames", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "ropework: error: MP4 needs the optional video extra: pip install 'ropework[video]' " \
                  "(or record .gif or .png)"
    assert not (tmp_path / "x.mp4").exists()


def test_record_needs_no_display_at_all(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    out = tmp_path / "r.png"
    r = subprocess.run([sys.executable, "-m", "ropework", str(LEVELS / "rope.toml"), "--record", str(out), "--frames", "2",
                        "--size", "64x48"], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert Image.open(out).size == (64, 48)


def test_the_command_picks_pyglets_silent_audio_unless_the_user_chose_one(monkeypatch, capsys):
    """The toys make no sound, so `ropework` skips loading OpenAL/PulseAudio (~0.13 s a start);
    a driver the user names in PYGLET_AUDIO is kept."""
    from ropework.cli import main
    monkeypatch.delenv("PYGLET_AUDIO", raising=False)
    assert main(["--list"]) == 0
    assert os.environ["PYGLET_AUDIO"] == "silent"
    monkeypatch.setenv("PYGLET_AUDIO", "openal")
    assert main(["--list"]) == 0
    assert os.environ["PYGLET_AUDIO"] == "openal"


_NO_PROBE = r"""
import subprocess, sys
ran = []
real = subprocess.Popen.__init__
def popen(self, args, *a, **k):
    ran.append(" ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args))
    return real(self, args, *a, **k)
subprocess.Popen.__init__ = popen
from ropework.cli import main
assert main([sys.argv[1], "--record", sys.argv[2], "--frames", "1", "--size", "64x48"]) == 0
import arcade   # imported by the recording: the check below is about its import
print("PROBES:" + "|".join(r for r in ran if "avutil" in r or "avcodec" in r or "swscale" in r))
maps = open("/proc/self/maps").read() if sys.platform.startswith("linux") else ""
print("LOADED:" + " ".join([m for m in ("PIL.GifImagePlugin", "PIL.ImageChops") if m in sys.modules]
                           + [lib for lib in ("libgdk_pixbuf", "libgdk-x11") if lib in maps]))
"""


def test_the_command_does_not_search_for_ffmpeg_as_arcade_imports(tmp_path):
    """pyglet's FFmpeg probe (ldconfig, gcc and ld runs where the libraries are missing) is
    skipped by `ropework`: the toys play no media; nor is GTK's GdkPixbuf loaded as pyglet's
    image decoder (images are read with Pillow). Nor does a PNG recording import what only a
    GIF needs (Pillow's GIF encoder)."""
    env = dict(os.environ, ARCADE_HEADLESS="1")
    r = subprocess.run([sys.executable, "-c", _NO_PROBE, "rope", str(tmp_path / "o.png")], capture_output=True,
                       text=True, cwd=ROOT, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-2:] == ["PROBES:", "LOADED:"]   # no search for FFmpeg's libraries, no GIF code
    assert (tmp_path / "o.png").exists()


def test_version_is_looked_up_when_asked_for():
    """importlib.metadata (a scan of the installed distributions) only for --version."""
    probe = ("import sys, ropework, ropework.cli; ropework.cli.parser(); "
             "print('importlib.metadata' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=True).stdout.strip() == "False"
    r = subprocess.run([sys.executable, "-m", "ropework", "--version"], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ropework ") and len(r.stdout.split()) == 2, r
    import ropework
    assert ropework.__version__ == r.stdout.split()[1]


_COLLECTOR = r"""
import gc, json, sys
from ropework import scene
seen = []
real = scene.Scene.step
def step(self, n=1):
    seen.append((gc.isenabled(), gc.get_freeze_count()))
    return real(self, n)
scene.Scene.step = step
from ropework.cli import main
assert main([sys.argv[1], "--record", sys.argv[2], "--frames", "3", "--size", "64x48"]) == 0
print("STEPS", json.dumps(seen[-3:]))
assert main(["--list"]) == 0
assert main(["no-such-level"]) == 2
print("AFTER", gc.isenabled())
"""


def test_the_collector_waits_out_the_start_up_and_runs_while_the_scene_plays(tmp_path):
    """`ropework` holds Python's cyclic collector off while it starts (its passes over the
    ≈ 150,000 objects start-up makes were ≈ 9 % of a warm start), then freezes what start-up made
    and turns the collector on before the scene's first step; a command that ends early (--list,
    a bad level) leaves it on too."""
    env = dict(os.environ, ARCADE_HEADLESS="1")
    r = subprocess.run([sys.executable, "-c", _COLLECTOR, "rope", str(tmp_path / "o.png")], capture_output=True,
                       text=True, cwd=ROOT, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    pairs = json.loads(next(ln for ln in lines if ln.startswith("STEPS "))[6:])   # the recording's three steps
    assert all(enabled for enabled, _ in pairs)
    assert all(frozen > 10_000 for _, frozen in pairs)               # start-up's objects: not walked again
    assert lines[-1] == "AFTER True"
