"""VSCodium's Insiders build names its user folder "VSCodium - Insiders" (its
`nameShort`, which VS Code's main.ts passes to `getUserDataPath`) and its remote
server's `.vscodium-server-insiders` (VSCodium's prepare_vscode.sh): on Linux, macOS and
Windows alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessdex.sources import Home
from tests.sources.test_cline import sessions, task

SAY = [{"ts": 1735000000000, "type": "say", "say": "task", "text": "Tidy the imports"}]


@pytest.mark.parametrize(
    "user_dir",
    [
        ".config/VSCodium - Insiders",
        "Library/Application Support/VSCodium - Insiders",
        "AppData/Roaming/VSCodium - Insiders",
        ".vscodium-server-insiders/data",
    ],
)
def test_a_copied_home_s_vscodium_insiders_tasks_are_found(
    tmp_path: Path, user_dir: str
) -> None:
    task(tmp_path, "1735000000000", SAY, user_dir=user_dir)
    found = sessions(Home.at(tmp_path))
    assert found["1735000000000"].title == "Tidy the imports"
