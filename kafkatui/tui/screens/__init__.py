"""The dashboard's screens: overview, topic, partition, broker, what-if, findings, help."""
