"""Playing a turn: policies (the optimum, or a user's file), the exact distribution of what a
policy records (evaluate), the one simulator with physical dice (simulate), and the tests of
someone else's samples (verify)."""
