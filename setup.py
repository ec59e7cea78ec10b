"""Map the repository's visible folders onto one import package, ``wordarena``.

pyproject.toml holds the metadata; this file only computes the package list, because setuptools'
``packages.find`` cannot put folders found under ``engine/`` into ``wordarena.engine``.
The mapping works for ``pip install .`` (a wheel) and ``pip install -e .`` (setuptools' editable
finder maps each root below).

It also builds the native move-generation core (``wordarena.engine.movegen.native_core``, plain C
against the CPython API, engine/movegen/native/) with the system compiler. A failed build is not
fatal: the package installs without it and the pure-Python generator is used
(``engine.movegen.native_bridge`` prints a one-line notice at first use).
"""

import platform
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

# import name -> folder in the repository
ROOTS = {
    "wordarena": "protos/wordarena",
    "wordarena.engine": "engine",
    "wordarena.services": "services",
    "wordarena.clients": "clients",
}

packages: list[str] = []
for name, folder in ROOTS.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing when the C compiler is missing or fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            self._skipped(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._skipped(exc)

    @staticmethod
    def _skipped(exc: BaseException) -> None:
        print(f"wordarena: the native move generator was not built ({exc}); "
              "the pure-Python generator will be used", file=sys.stderr)


_X86 = platform.machine().lower() in ("x86_64", "amd64")

NATIVE = Extension(
    "wordarena.engine.movegen.native_core",
    sources=["engine/movegen/native/movegen.c", "engine/movegen/native/wildcards.c",
             "engine/movegen/native/portals.c", "engine/movegen/native/endgame.c",
             "engine/movegen/native/endgame_search.c", "engine/movegen/native/endgame_py.c",
             "engine/movegen/native/linecache.c"],
    depends=["engine/movegen/native/movegen.h", "engine/movegen/native/endgame.h"],
    # -mpopcnt: the core finds a letter's DAWG edge by counting the node's letters before it
    # (movegen.h, edge_rank), one instruction on every x86-64 CPU since 2008; without it GCC
    # calls a library routine that made the search slower than the scan it replaces
    extra_compile_args=(["-O2", "-std=c99", *(["-mpopcnt"] if _X86 else [])]
                        if sys.platform != "win32" else []),
    optional=True,
)

setup(packages=packages, package_dir=ROOTS, ext_modules=[NATIVE], cmdclass={"build_ext": OptionalBuildExt})
