"""The clients of the public contract.

* ``cli``  the reference client: the ``wordarena`` command and its client library

The web client (``clients/web/``, TypeScript; its built files are served by the lobby) and
``clients/node-example/`` are not Python packages.
"""
