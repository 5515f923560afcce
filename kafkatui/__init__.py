"""kafkatui: a terminal dashboard for Apache Kafka replication health."""

__version__ = "0.1.0"
