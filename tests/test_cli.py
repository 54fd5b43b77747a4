"""The command line: config errors, the no-token help, and `simulate`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core.config import load_settings
from bot.core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def run_bot(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=clean | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_token_it_explains_how_to_add_one(tmp_path: Path) -> None:
    result = run_bot(cwd=tmp_path)
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr
    assert "config.toml" in result.stderr
    assert "simulate" in result.stderr


def test_a_bad_config_value_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[cafebot]\ndefault_turn_timeout = "soon"\n')
    result = run_bot(cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "default_turn_timeout" in lines[0]


def test_a_bad_environment_value_names_the_key(tmp_path: Path) -> None:
    result = run_bot(cwd=tmp_path, env={"CAFEBOT_LOG_LEVEL": "LOUD"})
    assert result.returncode == 2
    assert "log_level" in result.stderr


def test_settings_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[cafebot]\ndatabase_path = "from-file.db"\nlog_level = "DEBUG"\n')
    monkeypatch.setenv("CAFEBOT_LOG_LEVEL", "ERROR")
    monkeypatch.setenv("DISCORD_TOKEN", "secret-token-value")
    settings = load_settings(config)
    assert settings.database_path == Path("from-file.db")
    assert settings.log_level == "ERROR"
    assert settings.discord_token is not None
    assert "secret-token-value" not in repr(settings)
    config.write_text("[cafebot]\nunknown_key = 1\n")
    with pytest.raises(ConfigError, match="unknown_key"):
        load_settings(config)
    config.write_text("not = [toml")
    with pytest.raises(ConfigError, match="TOML"):
        load_settings(config)


def test_the_example_config_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    settings = load_settings(ROOT / "config.example.toml")
    assert settings.discord_token is None
    assert settings.sqlite_synchronous == "FULL"


def test_simulate_plays_every_game(tmp_path: Path) -> None:
    result = run_bot("simulate", "--game", "all", "--games", "3", "--seed", "5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    from games import REGISTRY

    for game_id in REGISTRY:
        assert any(line.startswith(game_id) for line in lines), game_id
    for line in lines:
        assert " 0 errors, 0 replay mismatches" in line, line
        assert "3 games, 3 finished" in line, line
    # Random players ask to take moves back now and then; each game still replays exactly.
    taken_back = [int(n) for line in lines for n in re.findall(r"(\d+) taken back", line)]
    assert len(taken_back) == len(lines) and sum(taken_back) > 0


def test_simulate_refuses_an_unknown_game(tmp_path: Path) -> None:
    result = run_bot("simulate", "--game", "chess", cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown game" in result.stderr
