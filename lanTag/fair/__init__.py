"""Fairness: commitments, per-seat hash chains and unbiased draws from shared seeds."""

from lanTag.fair.commit import commitment, opens
from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.fair.hash_chain import HashChain, chain_step_ok

__all__ = ["DrawStream", "HashChain", "chain_step_ok", "commitment", "draw_seed", "opens"]
