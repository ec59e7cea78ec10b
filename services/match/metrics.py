"""Domain metrics of the match server (``wordarena_*``)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

MATCHES_ACTIVE = Gauge("wordarena_matches_active", "Matches in progress on this server.")
MATCHES_CREATED = Counter("wordarena_matches_created_total", "Matches created on this server.")
MATCHES_FINISHED = Counter("wordarena_matches_finished_total", "Matches that ended on this server.")
MATCHES_ABORTED = Counter("wordarena_matches_aborted_total",
                          "Matches aborted on this server (MatchControlService.AbortMatch) before anyone "
                          "played in them.")
TURNS = Counter("wordarena_turns_total", "Turns stored, by ruleset family and kind.", ("ruleset", "kind"))
TURN_SECONDS = Histogram("wordarena_turn_seconds", "Time to handle a turn, from request to answer.",
                         buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
APPEND_SECONDS = Histogram("wordarena_event_append_seconds", "Time to append events durably.",
                           buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
SUBSCRIBERS = Gauge("wordarena_stream_subscribers", "Open StreamMatch streams.")
RECOVERIES = Counter("wordarena_recoveries_total",
                     "Running matches rebuilt from their log: reason restart (this server id owned it "
                     "before) or takeover (another server, or nobody after a drain, did).", ("reason",))
REPEATS = Counter("wordarena_repeated_requests_total", "Requests answered again from their request id.")
STREAM_CUTOFFS = Counter("wordarena_stream_cutoffs_total", "Streams cut off for reading too slowly.")
MOVEGEN_SECONDS = Histogram("wordarena_movegen_seconds",
                            "Engine move generation per use (bot, hindsight, hindsight_simulation, "
                            "word_strength).", ("use",),
                            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
RESULTS_REPORTED = Counter("wordarena_results_reported_total",
                           "Match results reported to the lobby, by outcome of the attempt.", ("result",))
RESULTS_PENDING = Gauge("wordarena_results_pending",
                        "Finished matches whose result the lobby has not acknowledged yet.")
LOCATIONS_REPORTED = Counter("wordarena_locations_reported_total",
                             "Match locations (after a take-over or restart) reported to the lobby, by "
                             "outcome of the attempt (acked, retry, refused).", ("result",))
