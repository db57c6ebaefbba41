"""The README's first example, run as written: in a fresh virtual environment with
`pip install ./services/sdk-python`, against the real service."""

from __future__ import annotations

import os
import re
import subprocess
import venv
from pathlib import Path
from typing import Any, Optional

from service_stack import KEY, REPO_ROOT, WS, Service, eventually

README = REPO_ROOT / "services" / "sdk-python" / "README.md"


def first_python_block() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "no python example in the README"
    return str(blocks[0])


def test_the_example_is_ten_lines_or_so() -> None:
    lines = [line for line in first_python_block().splitlines() if line.strip()]
    assert len(lines) <= 10, lines


def test_the_readme_example_sends_a_trace_with_model_tokens_and_cost(service: Service, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "./services/sdk-python"], cwd=REPO_ROOT, env=pip_env, capture_output=True, text=True, timeout=300
    )
    assert install.returncode == 0, install.stdout + install.stderr
    script = tmp_path / "example.py"
    script.write_text(first_python_block(), encoding="utf-8")
    run = subprocess.run(
        [str(python), str(script)],
        cwd=tmp_path,  # nothing from the repository on the path: the installed package only
        env={**os.environ, "SVC_API_KEY": KEY, "SVC_ENDPOINT": service.ingest_url, "PYTHONPATH": ""},
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr

    def readme_trace() -> Optional[Any]:
        rows = service.api("GET", f"{WS}/traces?page_size=100")["data"]
        return next((r for r in rows if (r["input_tokens"], r["output_tokens"]) == (1200, 300)), None)

    row = eventually(readme_trace)
    assert abs(row["cost_usd_total"] - 0.006) < 1e-9  # gpt-4o: 1200 x $2.50/M + 300 x $10/M
    detail = service.trace(row["trace_id"], spans=3)
    by_name = {s["name"]: s for s in detail["spans"]}
    assert set(by_name) == {"invoke_agent support-bot", "execute_tool lookup_order", "chat gpt-4o"}
    assert by_name["chat gpt-4o"]["model"] == "gpt-4o"
    assert by_name["invoke_agent support-bot"]["attributes"]["svc.end_user"] == "user-42"
    assert detail["spans"][0]["resource_attributes"]["telemetry.sdk.language"] == "python"
