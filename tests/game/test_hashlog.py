"""``--hash-every`` and ``ropework replay --against``: a one-ulp change in one field of one step is
found at that step, and named by its entity, component and field; bad hash logs are one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ropework import hashlog, level, script
from ropework.cli import main
from ropework.components import Points
from ropework.hashlog import HashLog
from ropework.scene import Scene
from ropework.snapshot import SnapshotError
from tests.conftest import ROOT

SCRIPT = ROOT / "docs" / "scripts" / "rope-throw.txt"
SIZE = (320, 180)


def _log(tmp_path, every, nudge_at=None, steps=60):
    """A hash log of the script's run on the rope level; with ``nudge_at``, one coordinate of one
    point is moved by one ulp after that step (before it is logged)."""
    events = script.parse(SCRIPT)
    s = Scene.load("rope", size=SIZE)
    out = tmp_path / f"run-{every}-{nudge_at}.hashes"
    log = HashLog(out, s, every, SCRIPT, steps)
    try:
        for f in range(steps):
            script.apply(s, events.get(f, ()))
            s.step(1)
            if f + 1 == nudge_at:
                ent, pts = s.find(Points)[0]
                pts.pos[3, 0] = np.nextafter(pts.pos[3, 0], np.float32(np.inf))
            log.after(s, f + 1)
    finally:
        log.close()
        s.close()
    return out, ent if nudge_at else None


def test_a_one_ulp_change_is_found_at_its_step_with_component_and_field(tmp_path):
    clean, _ = _log(tmp_path, 1)
    assert hashlog.replay(SCRIPT, level.resolve("rope"), clean)[0] == 0
    bad, ent = _log(tmp_path, 1, nudge_at=37)
    code, line = hashlog.replay(SCRIPT, level.resolve("rope"), bad)
    assert code == 1
    assert line.startswith(f"diverged at step 37: first entity {ent} Points.pos;"), line
    assert "1 field differs" in line                   # at that step nothing else has moved yet
    coarse, _ = _log(tmp_path, 10, nudge_at=37)
    code, line = hashlog.replay(SCRIPT, level.resolve("rope"), coarse)
    assert code == 1 and line.startswith(f"diverged at step 40: first entity {ent} Points.pos;"), line


def test_record_hash_every_and_the_replay_command(tmp_path, capsys):
    out = tmp_path / "r.png"
    assert main(["rope", "--record", str(out), "--frames", "30", "--size", "320x180", "--input", str(SCRIPT),
                 "--hash-every", "5"]) == 0
    log = tmp_path / "r.hashes"
    lines = log.read_text().splitlines()
    assert len(lines) == 1 + 30 // 5 and json.loads(lines[0])["every"] == 5
    capsys.readouterr()
    assert main(["replay", str(SCRIPT), "rope", "--against", str(log)]) == 0
    assert "same state at every one of 6 logged steps" in capsys.readouterr().out
    assert main(["replay", "-", "rope", "--against", str(log)]) == 2      # not the run's script
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["replay", str(SCRIPT), "cloth", "--against", str(log)]) == 2
    assert "not of 'cloth.toml'" in capsys.readouterr().err


@pytest.mark.parametrize("case,words", [
    ("empty", "empty"), ("not json", "expected a JSON object"), ("foreign", "not a ropework hash log"),
    ("a line missing", "expected step 10"), ("another version", "version 1"), ("no steps", "at least one step"),
])
def test_a_bad_hash_log_is_one_line(tmp_path, case, words, capsys):
    good, _ = _log(tmp_path, 5, steps=20)
    lines = good.read_text().splitlines()
    head = json.loads(lines[0])
    text = {"empty": "", "not json": "{nope\n", "foreign": '{"format": "x"}\n',
            "a line missing": "\n".join([lines[0], lines[1], lines[3]]),
            "another version": json.dumps(dict(head, version=7)) + "\n" + "\n".join(lines[1:]),
            "no steps": lines[0]}[case]
    bad = tmp_path / "bad.hashes"
    bad.write_text(text)
    with pytest.raises(SnapshotError, match=words):
        hashlog.read(bad)
    assert main(["replay", str(SCRIPT), "rope", "--against", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.hashes" in err
    with pytest.raises(SystemExit) as e:
        main(["rope", "--hash-every", "0", "--record", str(tmp_path / "x.png")])
    assert e.value.code == 2
    assert main(["rope", "--hash-every", "3"]) == 2      # needs --record


def test_a_log_cut_short_is_one_line(tmp_path, capsys):
    good, _ = _log(tmp_path, 5, steps=60)
    lines = good.read_text().splitlines()
    short = tmp_path / "short.hashes"
    short.write_text("\n".join(lines[:-2]) + "\n")            # two step lines lost
    assert main(["replay", str(SCRIPT), "rope", "--against", str(short)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "short.hashes" in err and "expected 12 step lines" in err


def test_a_run_from_a_snapshot_replays_from_it(tmp_path, capsys):
    s = Scene.load("rope", size=SIZE)
    s.pointer_down(160, 20)
    s.step(9)
    snap = s.snapshot(tmp_path / "start.snap")
    s.close()
    out = tmp_path / "x.png"
    assert main(["rope", "--from", str(snap), "--input", str(SCRIPT), "--record", str(out), "--frames", "60",
                 "--hash-every", "10"]) == 0
    log = next(tmp_path.glob("*.hashes"))
    assert json.loads(log.read_text().splitlines()[0])["from"]["file"] == "start.snap"
    capsys.readouterr()
    assert main(["replay", str(SCRIPT), "rope", "--against", str(log)]) == 2
    assert "replay it with --from" in capsys.readouterr().err
    assert main(["replay", str(SCRIPT), "rope", "--against", str(log), "--from", str(snap)]) == 0
    assert "same state at every one of 6 logged steps" in capsys.readouterr().out


def test_a_script_changed_since_the_run_is_refused_in_one_line(tmp_path, capsys):
    from ropework.cli import main
    script = tmp_path / "throw.txt"
    script.write_text(SCRIPT.read_text())
    out = tmp_path / "run.png"
    assert main(["rope", "--record", str(out), "--frames", "30", "--input", str(script), "--hash-every", "10"]) == 0
    log = out.with_suffix(".hashes")
    assert main(["replay", str(script), "rope", "--against", str(log)]) == 0
    script.write_text(SCRIPT.read_text().replace("8        down", "9        down", 1))
    capsys.readouterr()
    assert main(["replay", str(script), "rope", "--against", str(log)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(script) in err and "changed" in err, err
