"""One function per question, returning a frozen answer whose to_dict() is the command's
JSON: the Python API (re-exported by the package: ``dicesolver.advise`` ...).

zilch      rules, odds, strategy, advise, endgame, game, export
checks     evaluate, simulate, verify
pictures   plot_endgame, plot_distribution, plot_game
yahtzee    yahtzee_rules, yahtzee_advise, yahtzee_value, yahtzee_evaluate, yahtzee_simulate,
           yahtzee_export
review     review, yahtzee_review (decisions.py: a roll's choices valued)
play       play_game (play_zilch.py), yahtzee_play (play_yahtzee.py): games in a terminal
"""
