"""War of Words 2: action tiles, terrain changes, persistent effects and clouds.

The letter core (placement, wildcards, additive multipliers, bonus letter) is the shared engine;
this package adds what the text's action tiles do, as data (``catalog``) and small functions on
a working copy of the state (``arena``): ``turn`` (the family's hooks: a Play with action tiles),
``effects`` (destructive tiles), ``persist.end_of_turn`` (persistent effects) and ``clouds``
(drift and the projection helpers that hide what clouds cover). See ``docs/warofwords.md``.
"""
