"""Every process the cluster test starts (JVMs, moto) is registered here and stopped on every
exit path: normal exit, failure, Ctrl-C, SIGTERM, SIGHUP."""

from __future__ import annotations

import atexit
import signal
import subprocess


PROCESSES: list[subprocess.Popen] = []


def stop_process(proc: subprocess.Popen, grace: float = 20.0) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def stop_all() -> None:
    for proc in reversed(PROCESSES):
        stop_process(proc)


def on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def stop_all_on_exit() -> None:
    """Stops every registered process when the interpreter exits or a signal ends it."""
    atexit.register(stop_all)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
