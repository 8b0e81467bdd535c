"""Shared test settings."""

import os

from hypothesis import settings

# Property tests draw the same examples on every run, so CI results are reproducible;
# `HYPOTHESIS_PROFILE=explore pytest` searches afresh.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
