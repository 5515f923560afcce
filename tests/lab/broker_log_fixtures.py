"""Regenerate the real-broker-log fixtures (tests/history/fixtures/real-kafka-<line>/).

    .venv/bin/python -m tests.lab.broker_log_fixtures --version 4.1   # then --version 3.9

Starts a lab (1 controller + 3 brokers), records it with ``kafkatui record --interval 1`` and
runs, under load (acks=1, ~40 records/s per topic):

1. hang b3 (SIGSTOP) ~10 s: leaders shrink it out of ``isr-0`` and ``unclean-0``, then the
   controller fences it; restore (SIGCONT): it catches up, ISRs whole again;
2. controlled shutdown of b2 (SIGTERM), restart;
3. crash of b1 (SIGKILL): the RF-1 topic ``solo`` on b1 goes OFFLINE until b1 is back;
4. hang the follower F of ``unclean-0`` (shrunk out of it by its leader L), crash L:
   ``unclean-0`` has no live ISR member (OFFLINE) and ``isr-0`` may go under min ISR; resume F
   (alive, out of sync), ``kafkatui elect --unclean --topic unclean --partition 0 --write``
   answered on a real pty with both typed confirmations: F leads ``unclean-0`` (data lost);
   restart L.

Then the recorder and the lab are stopped and each node's server.log / state-change.log /
controller.log is trimmed to the lines about ISRs, leaders, fencing and elections (`KEEP`) into
``<out>/<node>/``; the recording goes to ``<out>/history/`` and a timeline of what was done to
``<out>/run.json``. A run takes ~3 minutes on an idle 2-core host.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafkatui.lab import load
from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.versions import release
from tests.lab.support import ROOT, create_topic, describe
from tests.procs import sigint_as_at_a_terminal

FIXTURES = ROOT / "tests" / "history" / "fixtures"
LOGS = ("server.log", "state-change.log", "controller.log")
TOPICS = ("isr", "solo", "unclean")
KEEP = re.compile(
    r"Shrinking ISR|ISR updated|Expanding ISR|starts at leader epoch|Skipped the become-|Current leader is"
    r"|Fencing broker|unfence|controlled shutdown|changing \d+ partition|unclean election|UNCLEAN partition"
    r"|RECOVERING|using ELR|Kafka Server started|Transition from \w+ to \w+|BrokerRegistrationChangeRecord"
    r"|Failed to alter partition|Exiting Kafka|Removed fetcher|Added fetcher|The broker has been unfenced"
    r"|In the new epoch|Replayed PartitionRecord for new partition"
)
"""Lines kept in the trimmed copies (others are startup noise, request logs, segment rolls...)."""
DROP = re.compile(
    r"^\s|LogLoader|UnifiedLog|ProducerStateManager|DynamicConfigPublisher|Recorded new KRaft"
    r"|RaftManager|Exception|NodeToControllerRequestThread"
)
_OTHER_TOPIC = re.compile(r"(?:Partition |Leader |Follower |for |partition )(__\S+|[a-z][\w.]*)-\d+")
MIN_ISR = {"isr": 2, "solo": 1, "unclean": 1}
"""Each topic's min.insync.replicas (the brokers' default is 2)."""


def _keep(line: str) -> bool:
    if not line.startswith("[") or not KEEP.search(line) or DROP.search(line):
        return False
    m = _OTHER_TOPIC.search(line)
    return m is None or m.group(1) in TOPICS


def trim(src: Path, dst: Path) -> int:
    """Copy the kept lines of one log file; returns how many."""
    n = 0
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(src, encoding="utf-8", errors="replace") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            if _keep(line):
                out.write(line)
                n += 1
    return n


class Loader:
    """Producers in threads (one per topic) until `stop`."""

    def __init__(self, lab: LabCluster, topics: tuple[str, ...], rate: float = 40.0) -> None:
        self.stop_flag = threading.Event()
        self.threads = [
            threading.Thread(
                target=load.produce,
                daemon=True,
                args=(lab.bootstrap, t, rate, None),
                kwargs={"stop": self.stop_flag.is_set},
            )
            for t in topics
        ]
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        self.stop_flag.set()
        for t in self.threads:
            t.join(30)


def wait(what: str, fn: Callable[[], Any], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if fn():
                return
        except Exception:  # noqa: BLE001 - a describe during a failover may fail; retried
            pass
        time.sleep(0.5)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def part(lab: LabCluster, topic: str) -> dict[str, Any]:
    return describe(lab, topic)[0]


def elect_unclean_on_pty(lab: LabCluster, topic: str, partition: int, audit: Path) -> tuple[int, str]:
    """`kafkatui elect --unclean --write` on a real pseudo-terminal, typing both confirmations."""
    master, slave = os.openpty()
    env = {**os.environ, "KAFKATUI_AUDIT_LOG": str(audit)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafkatui.cli",
            "elect",
            "--bootstrap",
            lab.bootstrap,
            "--unclean",
            "--topic",
            topic,
            "--partition",
            str(partition),
            "--write",
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    os.close(slave)
    os.write(master, f"{topic}-{partition}\n".encode())
    os.write(master, b"LOSE DATA\n")
    out = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    code = proc.wait(30)
    os.close(master)
    return code, out.decode(errors="replace")


def scenario(lab: LabCluster, work: Path, note: Callable[[str], None]) -> None:
    """The faults, in order (see the module docstring)."""
    create_topic(lab, "isr", 1, 3, MIN_ISR["isr"], assignment=[[1, 2, 3]])
    create_topic(lab, "solo", 1, 1, MIN_ISR["solo"], assignment=[[1]])
    create_topic(lab, "unclean", 1, 2, MIN_ISR["unclean"], assignment=[[2, 3]])
    loader = Loader(lab, TOPICS)
    try:
        time.sleep(4)
        note("hang b3")
        lab.hang("3")
        wait("b3 out of isr-0", lambda: part(lab, "isr")["isr"] == [1, 2])
        wait("b3 out of unclean-0", lambda: part(lab, "unclean")["isr"] == [2])
        time.sleep(8)  # past broker.session.timeout.ms: the controller fences b3 too
        note("restore b3")
        lab.restore("3")
        wait("isr-0 whole", lambda: part(lab, "isr")["isr"] == [1, 2, 3])
        wait("unclean-0 whole", lambda: part(lab, "unclean")["isr"] == [2, 3])
        time.sleep(4)
        note("shutdown b2")
        note(lab.shutdown("2"))
        wait("b2 out of isr-0", lambda: part(lab, "isr")["isr"] == [1, 3])
        time.sleep(5)
        note("restart b2")
        lab.restart("2")
        wait("isr-0 whole", lambda: part(lab, "isr")["isr"] == [1, 2, 3])
        wait("unclean-0 whole", lambda: part(lab, "unclean")["isr"] == [2, 3])
        time.sleep(4)
        note("crash b1")
        lab.crash("1")
        wait("solo-0 offline", lambda: part(lab, "solo")["leader"] < 0)
        wait("b1 out of isr-0", lambda: 1 not in part(lab, "isr")["isr"])
        time.sleep(4)
        note("restart b1")
        lab.restart("1")
        wait("solo-0 online", lambda: part(lab, "solo")["leader"] == 1)
        wait("isr-0 whole", lambda: part(lab, "isr")["isr"] == [1, 2, 3])
        time.sleep(4)
        un = part(lab, "unclean")  # after the restarts, either replica may lead (no auto rebalance)
        lead, follow = un["leader"], next(b for b in un["replicas"] if b != un["leader"])
        note(f"hang b{follow} (follower of unclean-0)")
        lab.hang(str(follow))
        wait(f"b{follow} out of unclean-0", lambda: part(lab, "unclean")["isr"] == [lead])
        note(f"crash b{lead} (leader of unclean-0)")
        lab.crash(str(lead))
        wait("unclean-0 offline", lambda: part(lab, "unclean")["leader"] < 0)
        note(f"restore b{follow}")
        lab.restore(str(follow))
        wait(f"b{follow} unfenced (back in isr-0)", lambda: follow in part(lab, "isr")["isr"])
        time.sleep(4)
        note("elect --unclean unclean-0")
        code, out = elect_unclean_on_pty(lab, "unclean", 0, work / "audit.jsonl")
        note(f"elect exit {code}: {out.strip().splitlines()[-1] if out.strip() else ''}")
        if code != 0:
            raise RuntimeError(f"kafkatui elect --unclean failed ({code}):\n{out}")
        wait(f"unclean-0 led by b{follow}", lambda: part(lab, "unclean")["leader"] == follow)
        time.sleep(4)
        note(f"restart b{lead}")
        lab.restart(str(lead))
        wait("isr-0 whole", lambda: part(lab, "isr")["isr"] == [1, 2, 3])
        wait("unclean-0 whole", lambda: part(lab, "unclean")["isr"] == [2, 3])
        time.sleep(4)
        note("done")
    finally:
        loader.stop()


def run(version: str, out: Path, keep_raw: Path | None = None) -> dict[str, Any]:
    """One lab run; writes the fixtures into `out`; returns run.json's content."""
    work = Path(tempfile.mkdtemp(prefix=f"kafkatui-reallogs-{version}-"))
    lab = LabCluster(work / "lab", release(version), 3)
    timeline: list[dict[str, Any]] = []

    def note(what: str) -> None:
        timeline.append({"ts": round(time.time(), 3), "what": what})
        print(f"{time.strftime('%H:%M:%S')} {what}", flush=True)

    t0 = time.monotonic()
    recorder: subprocess.Popen[bytes] | None = None
    try:
        lab.prepare()
        lab.start()
        started = time.monotonic() - t0
        note(f"lab {lab.rel.version} started in {started:.1f} s: {lab.bootstrap}")
        hist = work / "history"
        with open(work / "record.err", "wb") as rec_err:  # the child keeps its own descriptor
            recorder = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "kafkatui.cli",
                    "record",
                    "--bootstrap",
                    lab.bootstrap,
                    "--dir",
                    str(hist),
                    "--interval",
                    "1",
                    "--retention-days",
                    "0",
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=rec_err,
                preexec_fn=sigint_as_at_a_terminal,
            )
        time.sleep(3)
        scenario(lab, work, note)
    finally:
        if recorder is not None:
            recorder.send_signal(signal.SIGINT)
            try:
                recorder.wait(30)
            except subprocess.TimeoutExpired:
                recorder.kill()
                recorder.wait()
        lab.stop()
    total = time.monotonic() - t0
    if out.exists():
        shutil.rmtree(out)
    counts = {}
    for name, node in lab.nodes.items():
        for log in LOGS:
            src = node.logs / log
            if src.exists():
                counts[f"{name}/{log}"] = trim(src, out / name / log)
    shutil.copytree(work / "history", out / "history")
    doc = {
        "kafka": lab.rel.version,
        "brokers": 3,
        "recorder_interval_s": 1,
        "min_isr": MIN_ISR,
        "lab_start_s": round(started, 1),
        "run_s": round(total, 1),
        "timeline": timeline,
        "kept_lines": counts,
    }
    (out / "run.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if keep_raw is not None:
        shutil.copytree(work / "lab", keep_raw, ignore=shutil.ignore_patterns("data"), dirs_exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--version", default="4.1", help="Kafka line: 4.1 or 3.9")
    p.add_argument("--out", type=Path, default=None, help="default tests/history/fixtures/real-kafka-<line>")
    p.add_argument("--keep-raw", type=Path, default=None, help="also copy the untrimmed logs here")
    p.add_argument(
        "--retrim",
        type=Path,
        default=None,
        metavar="RAW",
        help="only trim the untrimmed logs of an earlier --keep-raw RAW into --out again",
    )
    ns = p.parse_args(argv)
    if ns.retrim is not None:
        out = ns.out or FIXTURES / f"real-kafka-{ns.version}"
        for src in sorted(ns.retrim.glob("*/logs/*.log")):
            if src.name in LOGS:
                print(src, trim(src, out / src.parent.parent.name / src.name))
        return 0
    doc = run(ns.version, ns.out or FIXTURES / f"real-kafka-{ns.version}", ns.keep_raw)
    print(f"lab start {doc['lab_start_s']} s, whole run {doc['run_s']} s; kept {doc['kept_lines']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
