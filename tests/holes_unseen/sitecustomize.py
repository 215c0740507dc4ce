"""Imported first by a sessdex run that `tests.helpers.holes_unseen` started: the
system's word on where a file's holes are is taken away, as on a system that has none
(Windows), so that a sparse file's hole is read through, as slowly as a big transcript."""

import os

for name in ("SEEK_DATA", "SEEK_HOLE"):
    if hasattr(os, name):
        delattr(os, name)
