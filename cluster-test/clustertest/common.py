"""Where the cluster test lives and builds, the Flink lines it runs on, and the helpers every
part uses: the log line, a check that fails the scenario, a free port, the one built jar."""

from __future__ import annotations

import socket
import time
from pathlib import Path

# cluster-test/, the folder of cluster.py and of this package.
HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent
BUILD = HERE / "target"
# The Flink lines this runs on (`--flink`, or env FLINK as the Makefile passes it). The default
# line's Maven outputs are under each module's target/, another line's under
# target/flink-<line>/ (its Maven profile flink-<line>, root pom.xml), and so are its runs here.
DEFAULT_FLINK = "2.1"
FLINK_LINES = ("2.1", "1.20")

CREATED_BY_PREFIX = "frazil version "
INSTALLED_LINE = "Frazil installed"
JOB_PACKAGE = "example.clusterjob."


class CheckFailed(Exception):
    """A check of the cluster test did not hold."""


def log(message: str) -> None:
    print(f"[cluster {time.strftime('%H:%M:%S')}] {message}", flush=True)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_file(pattern: str, directory: Path) -> Path:
    found = sorted(p for p in directory.glob(pattern) if not p.name.startswith("original-"))
    if len(found) != 1:
        raise SystemExit(f"expected one {directory}/{pattern}, found {found}: build first "
                         "(make cluster-test builds everything it needs)")
    return found[0]
