"""scripts/check_contract_copy.py: every api/contracts copy equals docs/contracts byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "check_contract_copy.py"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="outside the repository")

COPY = Path("libs/some-lib/src/some_lib/api/contracts")
SERVICE_COPY = Path("services/some-service/src/some_service/api/contracts")


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def _tree(tmp_path: Path) -> Path:
    files = {
        "recognition-request.schema.json": b'{"title": "Recognition request"}\n',
        "README.md": "# Контракт\n".encode(),
        "examples/request-1.0-tabular.json": b'{"schema_version": "1.0"}\n',
    }
    _write(tmp_path / "docs" / "contracts", files)
    _write(tmp_path / COPY, files)
    _write(tmp_path / SERVICE_COPY, files)
    return tmp_path


def _run(root: Path, docs: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARM_KA_DOCS"}
    if docs is not None:
        env["ARM_KA_DOCS"] = str(docs)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_identical_copies_pass(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = _run(root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert str(COPY) in result.stdout
    assert str(SERVICE_COPY) in result.stdout


def test_changed_file_fails_naming_it(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / COPY / "examples" / "request-1.0-tabular.json").write_bytes(
        b'{"schema_version": "1.1"}\n'
    )
    result = _run(root)
    assert result.returncode == 1
    assert "differs: examples/request-1.0-tabular.json" in result.stdout
    assert str(COPY) in result.stdout
    assert str(SERVICE_COPY) not in result.stdout


def test_changed_source_fails_every_copy(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "docs" / "contracts" / "recognition-request.schema.json").write_bytes(b"{}\n")
    result = _run(root)
    assert result.returncode == 1
    assert result.stdout.count("differs: recognition-request.schema.json") == 2


def test_missing_and_extra_files_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / COPY / "README.md").unlink()
    (root / COPY / "examples" / "stale.json").write_bytes(b"{}")
    result = _run(root)
    assert result.returncode == 1
    assert "missing: README.md" in result.stdout
    assert "extra:   examples/stale.json" in result.stdout


def test_source_from_arm_ka_docs(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    elsewhere = tmp_path / "arm-ka-docs"
    (elsewhere / "contracts").mkdir(parents=True)
    (elsewhere / "contracts" / "README.md").write_bytes("# Контракт\n".encode())
    result = _run(root, docs=elsewhere)
    assert result.returncode == 1
    assert "extra:   recognition-request.schema.json" in result.stdout


def test_absent_source_is_a_warning(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = _run(root, docs=tmp_path / "nowhere")
    assert result.returncode == 0
    assert "warning" in result.stderr
    assert "skipped" in result.stderr


def test_repository_copy_is_identical() -> None:
    result = _run(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
