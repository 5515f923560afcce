"""`kafkatui replay --progress-lines`: the job's progress as JSON Lines on stdout, for the dashboard.

One object per line, each with ``kind``:

- ``progress``: ``step`` (0-3, or 4: done), ``stage`` (read inputs, build intervals, aggregate, write),
  ``detail``, ``tasks_done`` / ``tasks_total`` of the Spark stages running now (from Spark's status
  tracker, polled twice a second; both 0 between stages), ``elapsed_s`` since the job started;
- ``jvm``: ``pid`` of the driver's JVM (so whoever started the job can check it is gone);
- ``done``: ``out``, ``incidents``, ``seconds``.

Failures are not lines here: the job prints its one-line error on stderr and exits with its code.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import IO, Any

from pyspark.sql import SparkSession

from kafkatui.history.replay.job import STAGES

POLL_S = 0.5


class ProgressLines:
    """Writes progress lines; `attach(spark)` starts polling the status tracker until `close()`."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.t0 = time.monotonic()
        self.step, self.detail = 0, "starting Spark"
        self.tasks = (0, 0)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def emit(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"kind": kind, **fields, "elapsed_s": round(time.monotonic() - self.t0, 1)})
        with self._lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):  # the reader has gone (the dashboard quit): the job goes on
                pass

    def _progress(self) -> None:
        done, total = self.tasks
        stage = STAGES[self.step] if self.step < len(STAGES) else "done"
        self.emit("progress", step=self.step, stage=stage, detail=self.detail, tasks_done=done, tasks_total=total)

    def __call__(self, step: int, detail: str) -> None:
        """The job's own progress callback (`replay_job.Progress`)."""
        self.step, self.detail = step, detail
        self._progress()

    def attach(self, spark: SparkSession) -> None:
        sc = spark.sparkContext
        try:
            jvm: Any = sc._jvm  # noqa: SLF001
            pid = int(jvm.java.lang.ProcessHandle.current().pid())
            self.emit("jvm", pid=pid)
        except Exception:  # not a local JVM we can name (none under some launchers): no pid line
            pass
        tracker = sc.statusTracker()

        def poll() -> None:
            while not self._stop.wait(POLL_S):
                try:
                    infos = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
                except Exception:  # the session is stopping
                    return
                done = sum(i.numCompletedTasks for i in infos if i is not None)
                total = sum(i.numTasks for i in infos if i is not None)
                if (done, total) != self.tasks:
                    self.tasks = (done, total)
                    self._progress()

        self._thread = threading.Thread(target=poll, name="replay-progress", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
