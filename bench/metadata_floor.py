"""The least a Python program using confluent-kafka can take to read a cluster's metadata.

Run as a child process by check_vs_kcat.py: start the interpreter, import confluent-kafka, ask for
every topic's metadata, touch each partition's leader, replicas and ISR (what any health model must
read), and exit. This is the floor under `kafkatui check --json` for the 2x-kcat target.
"""

from __future__ import annotations

import sys

from confluent_kafka.admin import AdminClient


def main() -> None:
    admin = AdminClient({"bootstrap.servers": sys.argv[1]})
    md = admin.list_topics(timeout=120)
    n = 0
    for t in md.topics.values():
        for p in t.partitions.values():
            n += len(p.replicas) + len(p.isrs) + (p.leader >= 0)
    print(n)


if __name__ == "__main__":
    main()
