"""Signed, hash-chained game logs."""
