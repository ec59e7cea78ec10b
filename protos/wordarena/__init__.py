"""wordarena: a gRPC game service for crossword-board word games.

One import package, assembled from the repository's visible top-level folders (see setup.py):

- ``wordarena.v1``        the public gRPC contract, generated from ``protos/wordarena/v1/*.proto``
- ``wordarena.engine``    the rules (``engine/``): pure, deterministic, no I/O
- ``wordarena.services``  the lobby and match servers and their shared plumbing (``services/``)
- ``wordarena.clients``   the reference client, the ``wordarena`` command (``clients/``)

This file lives under ``protos/`` because the proto package is ``wordarena.v1``: protoc's
``from wordarena.v1 import ...`` then works without rewriting.
"""
