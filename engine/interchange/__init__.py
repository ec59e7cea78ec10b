"""Interchange formats: GCG game records (parse, write, replay and check) and CGP positions."""
