"""torch.PyTorchFileReader: the records of a torch.save archive, by name (Lightning's lazy checkpoint loading)."""

from __future__ import annotations

import zipfile
from typing import IO


class PyTorchFileReader:
    def __init__(self, file: str | IO[bytes]) -> None:
        self._archive = zipfile.ZipFile(file)
        names = self._archive.namelist()
        # every record sits under one top-level folder (the archive's name); records are named without it
        self._prefix = names[0].split("/", 1)[0] + "/" if names else ""
        self._records = [name.removeprefix(self._prefix) for name in names]

    def get_all_records(self) -> list[str]:
        return list(self._records)

    def has_record(self, name: str) -> bool:
        return name in self._records

    def get_record(self, name: str) -> bytes:
        return self._archive.read(self._prefix + name)

    def get_record_size(self, name: str) -> int:
        return self._archive.getinfo(self._prefix + name).file_size
