"""The command line: config errors, the no-token help, and `simulate`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bot.__main__ import main as cli_main
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


def start_bot(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=clean | (env or {}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def playground_url(proc: subprocess.Popen[str]) -> str:
    """The address the playground says it serves on (its first line on stdout)."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    assert match, f"no address in {line!r} (stderr: {proc.stderr.read() if proc.stderr else ''})"
    return match.group(0)


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return err


def test_without_a_token_it_says_so_in_one_line_and_starts_the_playground(tmp_path: Path) -> None:
    proc = start_bot(cwd=tmp_path, env={"CAFEBOT_PLAYGROUND_PORT": "0"})
    try:
        url = playground_url(proc)
        with urllib.request.urlopen(url, timeout=10) as page:
            assert "cafebot playground" in page.read().decode()
        with urllib.request.urlopen(f"{url}/api/users", timeout=10) as answer:
            assert [u["name"] for u in json.load(answer)] == ["Alice", "Bob", "Carol", "Dave"]
    finally:
        err = stop(proc)
    notes = [line for line in err.splitlines() if "token" in line.lower()]
    assert len(notes) == 1, err
    assert "DISCORD_TOKEN" in notes[0] and "config.toml" in notes[0]


def test_play_serves_the_given_users_and_refuses_a_busy_port(tmp_path: Path) -> None:
    proc = start_bot("play", "--port", "0", "--users", "Zoé,Yann", cwd=tmp_path)
    try:
        url = playground_url(proc)
        with urllib.request.urlopen(f"{url}/api/users", timeout=10) as answer:
            assert [u["name"] for u in json.load(answer)] == ["Zoé", "Yann"]
        port = url.rsplit(":", 1)[1]
        busy = run_bot("play", "--port", port, cwd=tmp_path)
        assert busy.returncode == 2
        assert f"cannot serve the playground on 127.0.0.1:{port}" in busy.stderr
    finally:
        stop(proc)


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


def test_simulate_refuses_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simulate", "--game", "chess"]) == 2  # the CLI's main, in this process
    assert "unknown game" in capsys.readouterr().err


@pytest.mark.heavy
def test_the_arena_refuses_bad_input_and_plays_a_small_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The refusals through the CLI's own main (its exit code, its stderr) in this process: a
    # process of its own for each cost a start-up and proved nothing more; the small run below
    # is one, exit code and all.
    for args, words in (
        (["--game", "chess"], "unknown game"),
        (["--game", "cafe-carnage", "--players", "2"], "takes 3–8 players"),
        (["--game", "monster-cafe", "--seats", "hard,grandmaster"], "no bot level"),
        (["--game", "alien-cafe", "--mode", "greedy-L9"], "no player 'greedy-L9'"),
        (["--game", "breakfast-vs-aliens", "--option", "mode=waffle"], "Invalid option"),
        (["--game", "breakfast-vs-aliens", "--option", "mode"], "KEY=VALUE"),
    ):
        assert cli_main(["arena", *args]) == 2, args
        err = capsys.readouterr().err
        assert words in err, err
    small = ["--game", "breakfast-vs-aliens", "--seats", "normal,easy", "--games", "2"]
    result = run_bot("arena", *small, "--workers", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Breakfast vs Aliens (2p): 2 games, win share by level" in result.stdout
    assert "normal" in result.stdout and "easy" in result.stdout
