"""Issue #27: intervals whose unit is the card, runs compared on what they
share, one player's seeds side by side or pooled, output that fits the
terminal. Real runs of the baseline (small: few cards, one repetition);
the 25-card stores are a real episode copied under 25 card names, with the
outcomes set by SQL, so the expected numbers are known by construction."""

from __future__ import annotations

import json
import math
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from scigame.cli import main

REPO = Path(__file__).resolve().parent.parent
CARDS = {n: str(REPO / f"cards/historical/{n}.sci") for n in ("gravitation", "pendulum", "snell")}
SMALL = ["--setting", "discovery", "--env", "original", "--protocol", "prior,fixed", "--reps", "1", "--quiet"]


def invoke(*args, env=None):
    result = CliRunner().invoke(main, list(map(str, args)), env=env)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    """The baseline on gravitation and pendulum at seeds 0 and 1, and on pendulum and snell."""
    root = tmp_path_factory.mktemp("seeds")
    for name, seed, cards in (("seed0", 0, ("gravitation", "pendulum")), ("seed1", 1, ("gravitation", "pendulum")),
                              ("other", 0, ("pendulum", "snell"))):
        invoke("eval", *(CARDS[c] for c in cards), *SMALL, "--seed", seed, "--out", root / name)
    return root


def _cards_store(template: Path, folder: Path, outcomes: dict[str, float], reps: int = 1) -> Path:
    """A run folder whose one real episode is copied under card names c01.. with
    the given PS (weak and strict pass when PS is 1), each card `reps` times."""
    shutil.copytree(template, folder)
    db = sqlite3.connect(folder / "episodes.sqlite")
    (row,) = db.execute("SELECT * FROM episodes WHERE protocol = 'fixed' AND card = 'pendulum'").fetchall()
    names = [d[0] for d in db.execute("SELECT * FROM episodes").description]
    db.execute("DELETE FROM episodes")
    for card, ps in outcomes.items():
        for rep in range(reps):
            values = dict(zip(names, row), card=card, card_hash=f"hash-{card}", repetition=rep, ps=ps,
                          weak_success=int(ps == 1.0), strict_success=int(ps == 1.0), weak=int(ps == 1.0),
                          strict=int(ps == 1.0))
            db.execute(f"INSERT INTO episodes ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                       [values[n] for n in names])
    db.commit()
    db.close()
    return folder


@pytest.fixture(scope="module")
def twenty_five(seeds, tmp_path_factory):
    root = tmp_path_factory.mktemp("cards25")
    names = [f"c{i:02d}" for i in range(1, 26)]
    a = {c: 1.0 for c in names}
    a.update(c01=0.5, c02=0.5)  # A fails two cards B passes
    b = {c: 1.0 for c in names}
    b.update(c03=0.5, c04=0.5, c05=0.5)  # B fails three others: identical on 20 of 25
    worse = {c: 0.5 for c in names}  # fails every card A' passes
    template = seeds / "seed0"
    return (_cards_store(template, root / "a", a, reps=2), _cards_store(template, root / "b", b, reps=2),
            _cards_store(template, root / "best", {c: 1.0 for c in names}),
            _cards_store(template, root / "worse", worse))


def _json(*args) -> dict:
    return json.loads(invoke("report", *args, "--format", "json").stdout)


def test_identical_on_20_of_25_cards_is_not_apart(twenty_five):
    a, b, *_ = twenty_five
    data = _json(a, b)
    main = data["tables"]["main"]["rows"]
    cell = next(r for r in main if r["player"].endswith(str(a)))
    # repetitions are recognised as identical: n counts the 25 cards, not the 50 episodes
    assert (cell["cards"], cell["reps"], cell["identical"], cell["finished"]) == (25, 2, 25, 50)
    ci = binomtest(23, 25).proportion_ci(method="wilson")  # 23 of 25 cards, scipy's Wilson
    assert (cell["strict_esr_lo"], cell["strict_esr_hi"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    rows = [r for r in data["tables"]["compare"]["rows"] if r["metric"] == "strict ESR"]
    assert len(rows) == 1
    r = rows[0]
    assert (r["shared_cards"], r["differing"]) == (25, 5)
    assert r["difference"] == pytest.approx(23 / 25 - 22 / 25)
    assert r["difference_lo"] < 0 < r["difference_hi"]
    assert r["apart"] == "–" and r["p_holm"] > 0.05
    notes = " ".join(data["tables"]["main"]["notes"])
    assert "apart in 0 of 1 shared cells" in notes and "Wilcoxon" in notes
    assert (f"baseline @ {a}: in 1 of 1 cells with repeated cards every card's repetitions gave the same "
            "outcome") in notes


def test_better_on_every_card_is_apart(twenty_five):
    *_, best, worse = twenty_five
    data = _json(best, worse)
    rows = {r["metric"]: r for r in data["tables"]["compare"]["rows"]}
    for metric in ("strict ESR", "weak ESR", "mean PS"):
        r = rows[metric]
        assert r["differing"] == 25 and r["apart"] == "apart" and r["p_holm"] < 0.05
        assert r["difference_lo"] > 0
    # a sign-flip count by hand: all 25 differences positive has probability 2 / 2^25 under no difference
    assert rows["mean PS"]["p_holm"] < 0.001
    text = invoke("report", best, worse, "--table", "main", env={"COLUMNS": "100"}).stdout
    assert "apart in 1 of 1 shared cells" in text.replace("\n  ", " ")


def test_different_card_sets_say_what_is_shared(seeds):
    data = _json(seeds / "seed0", seeds / "other")
    notes = " ".join(data["tables"]["main"]["notes"])
    a, b = f"baseline @ {seeds / 'seed0'}", f"baseline @ {seeds / 'other'}"
    assert f"{a} and {b} share 1 card and 2 cells" in notes
    assert f"1 card only in {a} (gravitation)" in notes and f"1 card only in {b} (snell)" in notes
    assert "Comparisons use the shared cells and cards only" in notes
    assert all(r["shared_cards"] == 1 for r in data["tables"]["compare"]["rows"])
    text = invoke("report", seeds / "seed0", seeds / "other", env={"COLUMNS": "100"}).stdout
    flat = re.sub(r"\s+", " ", text)
    assert "share 1 card and 2 cells" in flat and "(snell)" in flat and "(gravitation)" in flat


def test_two_seeds_side_by_side_and_pooled(seeds):
    s0, s1 = seeds / "seed0", seeds / "seed1"
    data = _json(s0, s1)
    players = {r["player"] for r in data["tables"]["main"]["rows"]}
    assert players == {f"baseline @ {s0}", f"baseline @ {s1}"}
    assert "seeds differ" in " ".join(data["tables"]["main"]["notes"])
    pooled = _json(s0, s1, "--pool")
    rows = pooled["tables"]["main"]["rows"]
    assert {r["player"] for r in rows} == {"baseline"} and "compare" not in pooled["tables"]
    by_cell = {(r["protocol"]): r for r in rows}
    want = {}
    for folder in (s0, s1):
        db = sqlite3.connect(folder / "episodes.sqlite")
        for protocol, ps in db.execute("SELECT protocol, ps FROM episodes"):
            want.setdefault(protocol, []).append(ps)
        db.close()
    for protocol, values in want.items():
        r = by_cell[protocol]
        assert (r["cards"], r["reps"], r["finished"]) == (2, 2, 4)
        assert r["mean_ps"] == pytest.approx(sum(values) / len(values))
    # the same folder twice is still refused, and a comparison needs two columns
    result = CliRunner().invoke(main, ["report", str(s0), str(s0)])
    assert result.exit_code == 2 and "report each run once" in result.output
    result = CliRunner().invoke(main, ["report", str(s0), str(s1), "--pool", "--table", "compare"])
    assert result.exit_code == 2 and "needs two or more players or run folders" in result.output


def _numbers_in(rows: list[dict]) -> list[str]:
    """The main table's rates and means as the text table must show them, whole."""
    out = []
    for r in rows:
        if r["strict_esr"] is not None:
            out.append(f"{100 * r['strict_esr']:.0f}%")
        if r["mean_ps_lo"] is not None:
            out.append(f"{r['mean_ps']:.3f} [{r['mean_ps_lo']:.3f}–{r['mean_ps_hi']:.3f}]")
    return out


def test_output_fits_100_columns_and_cuts_no_number(seeds, tmp_path):
    env = {"COLUMNS": "100"}
    for args in ([seeds / "seed0", seeds / "seed1"], [seeds / "seed0", seeds / "other"]):
        text = invoke("report", *args, env=env).stdout
        assert max(map(len, text.splitlines())) <= 100, max(text.splitlines(), key=len)
        assert "…" not in text
        for number in _numbers_in(_json(*args)["tables"]["main"]["rows"]):
            assert number in text, number
    for by in ("cell", "card"):
        out = invoke("eval", CARDS["gravitation"], CARDS["pendulum"], *SMALL, "--by", by,
                     "--out", tmp_path / "e", env=env).output
        assert max(map(len, out.splitlines())) <= 100, max(out.splitlines(), key=len)
        assert "…" not in out
    flat = re.sub(r"\s+", " ", out)
    assert "legend: " in flat and "submitted: T = " in flat and "the world's law: T = 2*pi*sqrt(L/9.81)" in flat


def test_eval_summarises_its_own_invocation(tmp_path):
    folder = tmp_path / "run"
    invoke("eval", CARDS["gravitation"], *SMALL, "--out", folder)
    out = invoke("eval", CARDS["pendulum"], *SMALL, "--out", folder, "--format", "json").stdout
    data = json.loads(out)
    rows = data["tables"]["main"]["rows"]
    assert {r["cards"] for r in rows} == {1} and sum(r["finished"] for r in rows) == 2
    assert "holds 4 episodes of 2 cards in all" in data["folder"]
    failed = invoke("eval", CARDS["pendulum"], *SMALL, "--out", folder, "--by", "card", "--format", "json").stdout
    tables = json.loads(failed)["tables"]
    assert [r["card"] for r in tables["cards"]["rows"]] == ["pendulum", "pendulum"]
    for r in tables["failed"]["rows"]:  # what was submitted, beside the law it should have been
        assert r["submitted"].startswith("T = ") and r["law"] == "T = 2*pi*sqrt(L/9.81)"


def test_default_run_folder_follows_the_card_set(tmp_path, monkeypatch):
    from scigame.options import default_run_folder
    monkeypatch.chdir(tmp_path)
    assert default_run_folder("baseline", ()) == "runs/baseline"
    assert default_run_folder("baseline", ("cards/historical/pendulum.sci",)) == "runs/baseline-pendulum"
    many = default_run_folder("baseline", ("a.sci", "b.sci"))
    assert re.fullmatch(r"runs/baseline-a-and-1-more-[0-9a-f]{8}", many)
    assert many == default_run_folder("baseline", ("b.sci", "a.sci")) != default_run_folder("baseline", ("a.sci", "c.sci"))
    shutil.copy(CARDS["pendulum"], tmp_path / "mycard.sci")
    invoke("eval", "mycard.sci", *SMALL)
    assert (tmp_path / "runs/baseline-mycard/episodes.sqlite").exists() and not (tmp_path / "runs/baseline").exists()


def test_wilson_over_cards_matches_scipy():
    from scigame.intervals import card_rate_interval, wilson
    for k, n in ((0, 5), (3, 7), (25, 25)):
        ci = binomtest(k, n).proportion_ci(method="wilson")
        assert wilson(k, n) == (pytest.approx(ci.low), pytest.approx(ci.high))
    # three cards with two identical repetitions each are three observations, not six
    cards = {"x": [1.0, 1.0], "y": [0.0, 0.0], "z": [1.0, 1.0]}
    ci = binomtest(2, 3).proportion_ci(method="wilson")
    assert card_rate_interval(cards) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert not math.isclose(ci.low, binomtest(4, 6).proportion_ci(method="wilson").low)
