"""The README's Python quick start runs as printed: it ends with the job completed."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_quickstart_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart" / "quickstart.py")],
                         capture_output=True, text=True, env=dict(os.environ), timeout=120, check=True)
    assert re.fullmatch(r"job [0-9a-f-]+: completed\n", out.stdout), out.stdout + out.stderr
