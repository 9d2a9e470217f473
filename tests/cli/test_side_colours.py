"""Each side keeps its colour in every plot: red is red, blue is blue, in win bars and sweep curves alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fracas.cli.main import main
from fracas.services.sides import NAMED, PALETTE, side_colours

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "point_zero" / "duel.toml"  # sides "red" (listed first) and "blue"


def test_named_colours_win_and_others_take_the_palette_in_order() -> None:
    assert side_colours(["red", "blue"]) == {"red": NAMED["red"], "blue": NAMED["blue"]}
    got = side_colours(["mira", "guards", "blue"], {"mira": "Mira", "guards": "Security guards"})
    assert got["blue"] == NAMED["blue"]
    assert got["mira"] != got["guards"] and NAMED["blue"] not in (got["mira"], got["guards"])
    assert got["mira"] == next(c for c in PALETTE if c != NAMED["blue"])


def _figures(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[Any]:
    figure = pytest.importorskip("matplotlib.figure")
    saved: list[Any] = []
    monkeypatch.setattr(figure.Figure, "savefig", lambda self, *a, **k: saved.append(self))
    assert main(argv) == 0
    return saved


def _rgb_hex(colour: Any) -> str:
    from matplotlib.colors import to_hex

    return str(to_hex(colour))


def test_win_bars_and_sweep_curves_draw_each_side_in_its_colour(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = str(tmp_path / "p.png")
    (fig,) = _figures(monkeypatch, ["batch", str(DUEL), "-n", "20", "--seed", "1", "--workers", "1", "--plot", png])
    bars = fig.axes[0].patches
    assert [_rgb_hex(b.get_facecolor()) for b in bars[:2]] == [NAMED["red"], NAMED["blue"]]
    (fig,) = _figures(
        monkeypatch,
        [
            *("batch", str(DUEL), "-n", "20", "--seed", "1", "--workers", "1", "--plot", png, "--force"),
            "--sweep",
            "actors.rook.skills.handguns=2,4",
        ],
    )
    lines = {line.get_label(): _rgb_hex(line.get_color()) for line in fig.axes[0].get_lines()}
    red = next(v for k, v in lines.items() if "red" in k.lower())
    blue = next(v for k, v in lines.items() if "blue" in k.lower())
    assert (red, blue) == (NAMED["red"], NAMED["blue"]), lines
    capsys.readouterr()
