"""`make bench`: run every benchmark in bench/ and print its figures."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

BENCHES = [
    "sim_scale.py",
    "check_vs_kcat.py",
    "check_vs_kafka_tools.py",
    "tui_table.py",
    "tui_app.py",
    "incident_refresh.py",
    "replay_day.py",
    "rolling_gates.py",
    "launcher.py",
]

if __name__ == "__main__":
    here = Path(__file__).parent
    sys.path.insert(0, str(here.parent))
    for name in BENCHES:
        print(f"== {name}")
        runpy.run_path(str(here / name), run_name="__main__")
