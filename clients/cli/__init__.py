"""The reference client: the ``wordarena`` command."""
