"""The CLI's config file: the signed-in identity (player id, name, bearer token) and the known
match addresses, one :class:`Profile` per lobby address, in ``$WORDARENA_CONFIG`` or
``$XDG_CONFIG_HOME/wordarena/config.json`` (mode 0600: it holds bearer tokens)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path


def config_path() -> Path:
    """``$WORDARENA_CONFIG`` or ``$XDG_CONFIG_HOME/wordarena/config.json`` (``~/.config``)."""
    explicit = os.environ.get("WORDARENA_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "wordarena" / "config.json"


@dataclass
class Profile:
    """The identity remembered for one lobby."""

    player_id: str = ""
    display_name: str = ""
    token: str = ""
    expire_time: str = ""
    matches: dict[str, str] = field(default_factory=dict)  # match id -> last known address


@dataclass
class Config:
    """The config file: one :class:`Profile` per lobby address."""

    path: Path
    profiles: dict[str, Profile] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """Read the file; a missing or unreadable file gives an empty config."""
        path = path or config_path()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        profiles = {}
        for lobby, data in (raw.get("profiles") or {}).items():
            if isinstance(data, dict):
                known = {k: v for k, v in data.items() if k in Profile.__dataclass_fields__}
                profiles[lobby] = Profile(**known)
        return cls(path, profiles)

    def save(self) -> None:
        """Write the file (mode 0600: it holds bearer tokens)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"profiles": {k: vars(v) for k, v in self.profiles.items()}}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)

    def profile(self, lobby: str) -> Profile:
        """The profile for ``lobby`` (created empty when absent)."""
        return self.profiles.setdefault(lobby, Profile())
