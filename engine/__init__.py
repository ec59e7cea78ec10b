"""wordarena's rules engine: pure, deterministic, synchronous.

The rooms, from the ground up:

- ``engine.rulesets``  rules as data: boards (premiums, terrain), tile sets, family policies
- ``engine.lexicon``   word lists normalised per language, compiled to a flat-array DAWG
- ``engine.board``     squares, coordinates and the tiles lying on them
- ``engine.placement`` geometry of a play and the words it forms
- ``engine.scoring``   one scorer with per-family policies, and the breakdown that explains it
- ``engine.game``      the state machine: ``apply(state, action) -> (state, events)``
- ``engine.interchange`` GCG records and CGP positions

Nothing here does I/O (except reading data files shipped with the package), uses asyncio or
imports from ``services`` or ``clients``.
"""
