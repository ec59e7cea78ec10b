"""War of Words 2: action tiles, terrain changes, persistent effects and clouds.

The letter core (placement, wildcards, additive multipliers, bonus letter) is the shared engine;
this package adds what the text's action tiles do. See ``docs/warofwords.md``.

* ``catalog``    the Armory as data: every action tile, its kind, where it may go, how long it lives
* ``turn``       the family's hooks: a Play with letters and / or action tiles, scored in the text's order
* ``arena``      the board as a working copy (live squares, markers, scores, RNG) that effects change
* ``effects``    what each destructive tile destroys, and the growing tiles' stages
* ``persist``    persistent effects, evaluated at the end of every turn (``end_of_turn``)
* ``clouds``     clouds: their drift, and hiding what they cover from every view
* ``foresight``  what a play would do, told before it is played (the match server's PreviewPlay)
"""
