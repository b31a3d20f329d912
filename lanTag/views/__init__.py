"""What people see of a game: one view module per engine, found by engine id.

A view module (``<engine>_view.py``) reads an engine's state and never changes it:
``view(state, seat)`` (the dict UIs draw from), ``render(state)`` (the plain-text board),
``purpose_text(purpose)`` (a chance or secret purpose in words) and, optionally,
``events_texts(state, name)`` (the last input's facts in words, seats named by ``name``:
one wording table for the board, the view dict and the console's feed).  Views import the
engines; engines never import views (tests/test_architecture.py), so rewording a view
can never change a state hash.  :mod:`lanTag.views.registry` maps engine ids to them.
"""
