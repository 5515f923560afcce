"""Reading a replay's output directory (OUT): its files, frames and the day rebuilt minute by minute."""
