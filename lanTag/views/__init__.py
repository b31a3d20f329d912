"""What people see of a game: the view of each game, found by engine id.

A game's view module (``lanTag/games/<id>/view.py``, named by its ``GameEntry.view``) reads
its engine's state and never changes it: ``view(state, seat)`` (the dict UIs draw from),
``render(state)`` (the plain-text board), ``purpose_text(purpose)`` (a chance or secret
purpose in words) and, optionally, ``events_texts(state, name)`` (the last input's facts in
words, seats named by ``name``: one wording table for the board, the view dict and the
console's feed).  Views import the engines; engines never import views
(tests/test_architecture.py), so rewording a view can never change a state hash.  This
package holds what every view shares: :mod:`lanTag.views.registry` (``game_view`` and the
generic view) and :mod:`lanTag.views.naming`.
"""
