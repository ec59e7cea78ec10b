"""Map the repository's visible folders onto one import package, ``wordarena``.

pyproject.toml holds the metadata; this file only computes the package list, because setuptools'
``packages.find`` cannot put folders found under ``engine/`` into ``wordarena.engine``.
The mapping works for ``pip install .`` (a wheel) and ``pip install -e .`` (setuptools' editable
finder maps each root below).
"""

from setuptools import find_packages, setup

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

setup(packages=packages, package_dir=ROOTS)
