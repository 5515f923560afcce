"""The only code that talks to a Kafka cluster (real or simulated)."""
