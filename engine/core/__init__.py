"""The core: events, the log, dice, the clock, state projections, scenarios and the system registry."""
