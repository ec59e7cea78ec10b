"""Offline training of the bots' shipped data: tools a maintainer runs, not needed to play.

Nothing here is part of the ``wordarena`` package (pip installs none of it); run them from the
repository's root, e.g. ``python -m training.derive_leaves collect SAMPLES --until 20000``.

* ``derive_leaves`` self-play rack samples per family and language, and the leave tables fitted
  to them (``engine/bots/data/leaves-<family>-<language>.json``; docs/bots.md)
* ``leavefit``      the models fitted to those samples and how they are compared
"""
