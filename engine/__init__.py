"""wordarena's rules engine: pure, deterministic, synchronous.

The rooms, from the ground up:

* rules and words
  * ``rulesets``    rules as data: boards (premiums, terrain), tile sets, family policies
  * ``lexicon``     word lists normalised per language, compiled to a flat-array DAWG
  * ``tiles``       tiles, tile sets and rack tokens (letters, blanks, ``@bomb`` action tiles)
* a play on the board
  * ``board``       squares, coordinates (``8H`` / ``H8``) and the tiles lying on them
  * ``placement``   the geometry of a play and the words it forms, for every family
  * ``words``       a play's words checked against the lexicon, War of Words wildcards included
  * ``scoring``     the one scorer, per-family policies, and the breakdown that explains it
  * ``notation``    the one writer and reader of move notation (``8H WORD``, ``H8 @bomb``)
* the game
  * ``game``        the state machine: ``apply(state, action) -> (state, events)``
  * ``families``    a playable ruleset (data + its family's turn hooks) and ``replay`` of a log
  * ``warofwords``  War of Words' hooks: action tiles, terrain, effects, clouds
  * ``errors``      the engine's typed errors (``RuleError``, ``InputError``)
* on top of the game
  * ``movegen``     every legal play of a position
  * ``analysis``    Hindsight, Word Strength, the Tile Bag, record review
  * ``bots``        computer players, levels 1 to 6
  * ``interchange`` GCG game records and CGP positions

Nothing here does I/O (except reading data files shipped with the package), uses asyncio or
imports from ``services`` or ``clients``.
"""
