"""Services built on the core: run and replay, verify, audit, fork, batch, render, narration, play."""
