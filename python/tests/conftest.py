"""Shared helpers of the Python tests: where the test data is (set by ctest)."""
import os
import pathlib

DATA = pathlib.Path(os.environ.get("GRAPHPAT_TEST_DATA_DIR",
                                   pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"))
