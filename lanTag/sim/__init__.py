"""The balance lab: bot-vs-bot simulation and its figures (docs/balance.md)."""
