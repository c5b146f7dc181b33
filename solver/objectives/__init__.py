"""The questions of the Zilch family, each a payoff of the one turn solver (turn/):

score         expected points of one turn (the strategy card)
last_turn     P(win) of the last turn of a game, every deficit; reaching a target this turn
final_round   everyone's chance in a final round, each later player solved backward
game          the two-player game: P(the player to move wins) from every pair of scores
situation     which of these a position of the game is

They take a TurnModel (outcomes/) and build payoffs; the stored tables (tables.py) keep what
they solve.  None of them looks a folder up.
"""
