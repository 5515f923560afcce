"""The replication-health model: pure domain logic, no textual, no network."""
