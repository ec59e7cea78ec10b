"""The lobby server: players, tables, matchmaking, allocation, records and leaderboards."""
