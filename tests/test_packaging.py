"""ropework as a user installs it: a wheel in a fresh virtual environment, used from elsewhere.

One module-scoped environment (the wheel built from this checkout, installed non-editable
into a new venv) serves every test here. Each command runs from a folder that holds a
`game/` package, a `systems.py` and a `components.py` of its own — the names a user's game
is likely to have — so an import that is not `ropework.*` would find the user's files.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

EMBED = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "extending.md").read_text(), re.S)[1]


def _run(cmd, cwd, env=None, timeout=600, **kw):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, **kw)


@pytest.fixture(scope="module")
def installed():
    """(venv, site-packages, a user's game folder, environment) with the wheel installed."""
    top = Path(tempfile.mkdtemp(prefix="ropework-wheel-"))
    try:
        wheels = top / "wheels"
        r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", wheels, ROOT], cwd=top)
        assert r.returncode == 0, r.stderr
        wheel, = wheels.glob("ropework-*.whl")
        venv = top / "venv"
        r = _run([sys.executable, "-m", "venv", venv], cwd=top)
        assert r.returncode == 0, r.stderr
        r = _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel], cwd=top)
        assert r.returncode == 0, r.stderr
        site = Path(_run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         cwd=top).stdout.strip())
        user = top / "mygame"                       # somebody's own game, with the generic names
        (user / "game").mkdir(parents=True)
        (user / "game" / "__init__.py").write_text("raise ImportError('this is the user\\'s own game package')\n")
        (user / "systems.py").write_text("raise ImportError('the user\\'s systems.py')\n")
        (user / "components.py").write_text("raise ImportError('the user\\'s components.py')\n")
        home = top / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "ROPEWORK_", "PYTHON"))}
        env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), ARCADE_HEADLESS="1",
                   PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
        yield venv, site, user, env
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_the_wheel_installs_one_package_with_its_levels(installed):
    venv, site, user, env = installed
    tops = sorted(p.name for p in site.iterdir() if not p.name.startswith(("_", "pip", "setuptools")))
    ours = [n for n in tops if n.lower().startswith("ropework")]
    assert ours and all(n == "ropework" or n.startswith("ropework-") for n in ours), ours
    for generic in ("game", "systems", "components", "levels"):
        assert not (site / generic).exists(), f"the wheel installs a top-level {generic!r}"
    assert (site / "ropework" / "py.typed").is_file()
    assert sorted(p.name for p in (site / "ropework" / "levels").glob("*.toml")) == \
        sorted(p.name for p in (ROOT / "levels").glob("*.toml"))
    lic = list(site.glob("ropework-*.dist-info/licenses/LICENSE")) or list(site.glob("ropework-*.dist-info/LICENSE"))
    assert lic, "LICENSE is not in the wheel"


def test_list_and_version_from_a_users_folder(installed):
    venv, site, user, env = installed
    r = _run(["ropework", "--list"], cwd=user, env=env)
    assert r.returncode == 0, r.stderr
    assert [ln.split()[1] for ln in r.stdout.splitlines()] == sorted(p.name for p in (ROOT / "levels").glob("*.toml"))
    r = _run(["ropework", "--version"], cwd=user, env=env)
    assert r.returncode == 0 and re.fullmatch(r"ropework \d+\.\d+\.\d+\n", r.stdout), (r.stdout, r.stderr)
    r = _run(["ropework", "--help"], cwd=user, env=env)
    assert r.returncode == 0 and r.stdout.startswith("usage: ropework") and "python -m game" not in r.stdout
    r = _run([venv / "bin" / "python", "-m", "ropework", "frame", "moeru"], cwd=user, env=env)
    assert r.returncode == 0 and "draw_lanyard" in r.stdout, r.stderr


def test_list_into_a_closed_pipe_exits_quietly(installed):
    venv, site, user, env = installed
    r = _run(["bash", "-c", "set -o pipefail; ropework --list | head -n 1"], cwd=user, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert len(r.stdout.splitlines()) == 1


def test_record_the_default_level_and_say_a_compile_first(installed):
    venv, site, user, env = installed
    out = user / "out.png"
    r = _run(["ropework", "--record", out, "--frames", "30"], cwd=user, env=env)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 1000
    assert "compiling" in r.stderr and "physics kernel" in r.stderr      # a cold cache: said before it starts
    again = _run(["ropework", "rope", "--record", out, "--frames", "2"], cwd=user, env=env)
    assert again.returncode == 0 and "compiling" not in again.stderr, again.stderr   # cached in the user's cache
    assert list((Path(env["XDG_CACHE_HOME"]) / "ropework" / "kernels").rglob("*.nbi"))


def test_the_embedding_example_runs_with_a_packaged_level(installed):
    venv, site, user, env = installed
    script = user / "embed.py"
    script.write_text(EMBED + """
window = arcade.Window(640, 360, "embedded")
view = RopeView()
window.show_view(view)
before = view.scene.state_hash()
view.on_mouse_motion(320, 200, 0, 0)
for _ in range(10):
    view.on_update(1 / 60)
view.on_draw()
assert view.scene.frame.steps >= 9 and view.scene.state_hash() != before
view.on_hide_view()
print("embedded ok")
""")
    r = _run([venv / "bin" / "python", script], cwd=user, env=env)
    assert r.returncode == 0 and "embedded ok" in r.stdout, r.stderr


def test_the_example_plugin_installs_from_its_folder_and_its_level_records(installed):
    venv, site, user, env = installed
    r = _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", ROOT / "examples" / "ropework-tearing"],
             cwd=user, env=env)
    assert r.returncode == 0, r.stderr
    out = user / "tear.png"
    r = _run(["ropework", ROOT / "examples" / "ropework-tearing" / "levels" / "tear.toml", "--record", out,
              "--frames", "5"], cwd=user, env=env)
    assert r.returncode == 0 and out.is_file(), r.stderr


def _read_only(paths):
    """A command prefix under which ``paths`` are read-only: root ignores write bits, so as root
    each is bind-mounted read-only in a private mount namespace; otherwise the bits go."""
    if os.getuid() != 0:
        for p in paths:
            subprocess.run(["chmod", "-R", "a-w", str(p)], check=True)
        return []
    mounts = " && ".join(f"mount --bind -o ro '{p}' '{p}'" for p in paths)
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", f"{mounts} && true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a read-only mount here: {probe.stderr.decode().strip()}")
    return ["unshare", "--mount", "sh", "-c", f'{mounts} && exec "$@"', "sh"]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_read_only_site_packages_and_no_writable_home(installed):
    """A system-wide install in a container: nothing of ours is writable, nor HOME; /tmp is."""
    venv, site, user, env = installed
    work = Path(tempfile.mkdtemp(prefix="ropework-ro-"))
    home, tmp = work / "home", work / "tmp"
    home.mkdir()
    tmp.mkdir()
    ro_env = {**env, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": str(tmp)}
    level = work / "mine.toml"
    shutil.copy(ROOT / "levels" / "dotgrid.toml", level)
    try:
        wrap = _read_only([venv, home])
        runs = {
            "list": ["ropework", "--list"],
            "validate": ["ropework", "validate", level],
            "frame": ["ropework", "frame", level],
            "record": ["ropework", level, "--record", work / "shot.png", "--frames", "3"],
        }
        for name, cmd in runs.items():
            r = _run(wrap + cmd, cwd=work, env=ro_env)
            assert r.returncode == 0, (name, r.stderr)
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            about_cache = [ln for ln in lines if "kernels are cached in" in ln or "compiled on each run" in ln]
            others = [ln for ln in lines if ln not in about_cache and "compiling" not in ln]
            assert len(about_cache) <= 1 and not others, (name, r.stderr)
        assert (work / "shot.png").is_file()
        assert list(tmp.glob("ropework-kernels-*/**/*.nbi"))          # cached in the temporary folder
        assert not [p for p in site.rglob("*") if p.suffix in (".nbi", ".nbc")], "kernels cached in site-packages"
    finally:
        if os.getuid() != 0:
            subprocess.run(["chmod", "-R", "u+w", str(venv), str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


def test_uninstall_leaves_no_ropework_file(installed):
    venv, site, user, env = installed
    r = _run([venv / "bin" / "python", "-m", "pip", "uninstall", "--yes", "--quiet", "ropework-tearing", "ropework"],
             cwd=user, env=env)
    assert r.returncode == 0, r.stderr
    left = [p for p in site.rglob("*") if "ropework" in p.name.lower()]
    assert not left, left
    assert not (venv / "bin" / "ropework").exists()
    r = _run([venv / "bin" / "python", "-c", "import ropework"], cwd=user, env=env)
    assert r.returncode != 0

