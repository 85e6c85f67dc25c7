"""Tests of the benchmark objectives."""
