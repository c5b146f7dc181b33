"""The Yahtzee family: exact optimal solitaire play (yahtzee, yahtzee-free-joker, yatzy)."""
